package broker

import (
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestQuotaThrottling: on the broker's own clock, a default client-id
// quota of 1000 B/s throttles the Produce that takes a client past
// 10 s worth of bytes by exactly the excess (KIP-219) and still appends
// it; a Fetch is capped to the quota window, a Fetch over quota comes
// back empty and uncounted, and once the span has grown it is served.
// The quotas survive a restart.
func TestQuotaThrottling(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	alter := kmsg.NewPtrAlterClientQuotasRequest()
	entry := kmsg.NewAlterClientQuotasRequestEntry()
	entry.Entity = []kmsg.AlterClientQuotasRequestEntryEntity{{Type: "client-id"}} // the default
	entry.Ops = []kmsg.AlterClientQuotasRequestEntryOp{{Key: "producer_byte_rate", Value: 1000}, {Key: "consumer_byte_rate", Value: 1000}}
	alter.Entries = append(alter.Entries, entry)
	if r := call[*kmsg.AlterClientQuotasResponse](h, alter); r.Entries[0].ErrorCode != 0 {
		t.Fatalf("AlterClientQuotas: %d", r.Entries[0].ErrorCode)
	}

	batch := batchOf(strings.Repeat("x", 5950))
	if len(batch) < 6000 || len(batch) > 6100 {
		t.Fatalf("batch of %d bytes, want about 6000", len(batch))
	}
	// bytes/1000 B/s - 10 s, in ms; computed in floating point and
	// truncated, as Kafka does, so within 1 ms.
	near := func(got int32, total int) bool { d := got - int32(total-10_000); return d >= -1 && d <= 0 }
	first := call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batch))
	if first.ThrottleMillis != 0 {
		t.Errorf("first produce throttled %d ms under quota", first.ThrottleMillis)
	}
	second := call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batch))
	if !near(second.ThrottleMillis, 2*len(batch)) {
		t.Errorf("second produce throttled %d ms, want %d", second.ThrottleMillis, 2*len(batch)-10_000)
	}
	if p := second.Topics[0].Partitions[0]; p.ErrorCode != 0 || p.BaseOffset != 1 {
		t.Errorf("the throttled produce: error %d base %d, want appended at 1", p.ErrorCode, p.BaseOffset)
	}

	fetch := func(offset int64) *kmsg.FetchResponse {
		return call[*kmsg.FetchResponse](h, fetchReq("t", 0, offset, 1, 0))
	}
	f := fetch(0) // capped to 10 s of quota: the first batch only
	if f.ThrottleMillis != 0 || len(f.Topics) != 1 || len(f.Topics[0].Partitions[0].RecordBatches) != len(batch) {
		t.Fatalf("first fetch: throttle %d, %+v; want the first batch alone", f.ThrottleMillis, f.Topics)
	}
	for range 2 { // over quota: empty, and not counted, so the same again
		f = fetch(1)
		if !near(f.ThrottleMillis, 2*len(batch)) || f.Topics != nil {
			t.Errorf("fetch over quota: throttle %d ms, %d topics; want %d ms and no data", f.ThrottleMillis, len(f.Topics), 2*len(batch)-10_000)
		}
	}
	h.now += 12_500 // the span is now 12.5 s: 12 kB is under 1000 B/s
	if f = fetch(1); f.ThrottleMillis != 0 || len(f.Topics) != 1 || len(f.Topics[0].Partitions[0].RecordBatches) != len(batch) {
		t.Errorf("fetch after the span grew: throttle %d, %+v; want the second batch", f.ThrottleMillis, f.Topics)
	}

	h.b.Close()
	h.open()
	d := call[*kmsg.DescribeClientQuotasResponse](h, kmsg.NewPtrDescribeClientQuotasRequest())
	if len(d.Entries) != 1 || len(d.Entries[0].Values) != 2 || d.Entries[0].Entity[0].Name != nil {
		t.Errorf("after a restart: %+v, want the default client-id's two quotas", d.Entries)
	}
}
