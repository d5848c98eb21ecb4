package broker

import (
	"fmt"
	"testing"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/twmb/franz-go/pkg/kerr"
)

// A compacted topic refuses a batch holding records without a key, naming
// each such record by its index (KIP-467's record errors, as Kafka's
// LogValidator reports them); a batch whose records all have keys goes in.
func TestCompactedRefusesKeylessRecordsOneByOne(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, map[string]string{"cleanup.policy": "compact"})

	bl := record.NewBuilder(record.NewBatchHeader(1000))
	for i := range 6 {
		key := []byte(fmt.Sprint("k", i))
		if i%2 == 1 {
			key = nil
		}
		bl.Add(key, []byte("v"), 0)
	}
	bl.Add(nil, []byte("v"), 0) // index 6: a fourth keyless record, counted but not quoted
	p := h.produce(bl.Build())
	if p.ErrorCode != kerr.InvalidRecord.Code {
		t.Fatalf("keyless records in a compacted topic: %v, want INVALID_RECORD", kerr.ErrorForCode(p.ErrorCode))
	}
	why := "Compacted topic cannot accept message without key in topic partition t-0."
	var got []int32
	for _, e := range p.ErrorRecords {
		if got := derefString(e.ErrorMessage); got != why {
			t.Errorf("record %d: message %q, want %q", e.RelativeOffset, got, why)
		}
		got = append(got, e.RelativeOffset)
	}
	if fmt.Sprint(got) != "[1 3 5 6]" {
		t.Errorf("record errors at %v, want [1 3 5 6]", got)
	}
	want := "One or more records have been rejected due to 4 record errors in total, and only showing the first three errors at most: " +
		"[RecordError(batchIndex=1, message='" + why + "'), RecordError(batchIndex=3, message='" + why + "'), RecordError(batchIndex=5, message='" + why + "')]"
	if got := derefString(p.ErrorMessage); got != want {
		t.Errorf("error message %q,\nwant %q", got, want)
	}

	keyed := record.NewBuilder(record.NewBatchHeader(1000)).Add([]byte("k"), []byte("v"), 0).Build()
	h.mustProduce(keyed, 0)
}
