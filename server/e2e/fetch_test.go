package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFetchWire sends Fetch at the versions older clients use (librdkafka
// and kafkajs stop at v11) over a raw connection, so that what the broker
// puts on the wire is checked byte-for-byte by kmsg rather than forgiven by
// a lenient client.
func TestFetchWire(t *testing.T) {
	t.Parallel()
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	topic := topicName(t, "")
	mustCreateTopic(t, b.Admin(t), topic, 1, nil)
	ctx := testCtx(t, opTimeout)
	// Two compressed batches of 20 records: offsets 0..19 and 20..39.
	cl := b.Client(t, kgo.DefaultProduceTopic(topic), kgo.ProducerBatchCompression(kgo.SnappyCompression()), kgo.ProducerLinger(50*time.Millisecond))
	for batch := range 2 {
		var rs []*kgo.Record
		for i := range 20 {
			rs = append(rs, &kgo.Record{Value: fmt.Appendf(nil, "r%02d", batch*20+i)})
		}
		if err := cl.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
		if rs[0].Offset != int64(batch*20) || rs[19].Offset != int64(batch*20+19) {
			t.Fatalf("produced at offsets %d..%d, want %d..%d", rs[0].Offset, rs[19].Offset, batch*20, batch*20+19)
		}
	}
	const hwm = 40

	fetch := func(t *testing.T, version int16, offset int64) kmsg.FetchResponseTopicPartition {
		t.Helper()
		c := dialRaw(t, b.Addr)
		req := kmsg.NewPtrFetchRequest()
		req.Version = version
		req.ReplicaID = -1
		req.MaxWaitMillis = 100
		req.MinBytes = 0
		req.MaxBytes = 1 << 20
		req.SessionEpoch = -1
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = topic
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition = 0
		rp.FetchOffset = offset
		rp.CurrentLeaderEpoch = -1
		rp.LogStartOffset = -1
		rp.PartitionMaxBytes = 1 << 20
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		c.corr++
		c.writeRequest(t, req.Key(), version, c.corr, req.IsFlexible(), req.AppendTo(nil))
		corr, body := c.readFrame(t)
		if corr != c.corr {
			t.Fatalf("Fetch v%d: correlation id %d, want %d", version, corr, c.corr)
		}
		if req.IsFlexible() {
			if len(body) == 0 || body[0] != 0 {
				t.Fatalf("Fetch v%d: response header tagged fields %x, want none", version, body[:min(len(body), 1)])
			}
			body = body[1:]
		}
		resp := kmsg.NewPtrFetchResponse()
		resp.Version = version
		if err := resp.ReadFrom(body); err != nil {
			t.Fatalf("Fetch v%d response does not decode: %v", version, err)
		}
		if resp.ErrorCode != 0 || len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
			t.Fatalf("Fetch v%d: error %d, %d topics", version, resp.ErrorCode, len(resp.Topics))
		}
		p := resp.Topics[0].Partitions[0]
		if p.ErrorCode != 0 || p.HighWatermark != hwm {
			t.Fatalf("Fetch v%d at %d: partition error %d, high watermark %d (want 0 and %d)", version, offset, p.ErrorCode, p.HighWatermark, hwm)
		}
		return p
	}

	for _, v := range []int16{4, 11, 12} {
		t.Run(fmt.Sprintf("v%d", v), func(t *testing.T) {
			// From the middle of the batch: Kafka returns the whole batch
			// holding the offset; the client skips what precedes it.
			for _, at := range []int64{0, 7, 20, 27, 39} {
				p := fetch(t, v, at)
				recs := decodeBatches(t, p.RecordBatches)
				if len(recs) == 0 || recs[0] > at || recs[len(recs)-1] < at {
					t.Errorf("Fetch v%d at offset %d: returned offsets %v (%d bytes), want a batch containing %d", v, at, recs, len(p.RecordBatches), at)
				}
			}
			// At the high watermark: no records, encoded as an empty (not
			// null) records field; librdkafka rejects null ("invalid
			// MessageSetSize -1").
			p := fetch(t, v, hwm)
			if p.RecordBatches == nil {
				t.Errorf("Fetch v%d at the high watermark: records field is null, want empty", v)
			} else if len(p.RecordBatches) != 0 {
				t.Errorf("Fetch v%d at the high watermark: %d bytes of records, want none", v, len(p.RecordBatches))
			}
		})
	}
}

// decodeBatches lists the offsets covered by the v2 batches in raw.
func decodeBatches(t testing.TB, raw []byte) []int64 {
	t.Helper()
	var offsets []int64
	for len(raw) >= 12 {
		var batch kmsg.RecordBatch
		if err := batch.ReadFrom(raw); err != nil {
			// A trailing partial batch is allowed (fetch limits).
			break
		}
		for i := int64(0); i <= int64(batch.LastOffsetDelta); i++ {
			offsets = append(offsets, batch.FirstOffset+i)
		}
		raw = raw[12+int(batch.Length):]
	}
	return offsets
}
