package view

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// TestRecordsOf: the records of a fetched record set from an offset on,
// at most n, control batches left out, nil keys kept null, and next the
// offset after the last one returned.
func TestRecordsOf(t *testing.T) {
	var set []byte
	h := record.NewBatchHeader(1000)
	set = record.NewBuilder(h).Add(nil, []byte("a"), 0).Add([]byte("k"), []byte("b"), 5, record.Header{Key: "h", Value: []byte("v")}).AppendBatch(set)
	marker := record.NewBatchHeader(2000)
	marker.BaseOffset, marker.Control, marker.Transactional = 2, true, true
	set = record.NewBuilder(marker).Add([]byte{0, 0, 0, 0}, []byte{0, 0, 0, 0, 0, 0}, 0).AppendBatch(set)
	h.BaseOffset = 3
	set = record.NewBuilder(h).Add(nil, []byte("c"), 0).Add(nil, []byte("d"), 0).AppendBatch(set)
	for _, tc := range []struct {
		from     int64
		n        int
		want     []string
		wantNext int64
	}{
		{0, 10, []string{"0 <nil> a 1000", "1 k b 1005 h=v", "3 <nil> c 1000", "4 <nil> d 1000"}, 5},
		{1, 2, []string{"1 k b 1005 h=v", "3 <nil> c 1000"}, 4},
		{2, 10, []string{"3 <nil> c 1000", "4 <nil> d 1000"}, 5},
		{4, 1, []string{"4 <nil> d 1000"}, 5},
		{5, 10, nil, 5},
	} {
		recs, next, err := RecordsOf(set, nil, tc.from, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			key := "<nil>"
			if r.Key != nil {
				key = string(r.Key)
			}
			s := fmt.Sprintf("%d %s %s %d", r.Offset, key, r.Value, r.Timestamp)
			for _, h := range r.Headers {
				s += fmt.Sprintf(" %s=%s", h.Key, h.Value)
			}
			got = append(got, s)
		}
		if !slices.Equal(got, tc.want) || next != tc.wantNext {
			t.Errorf("from %d, n %d: %q next %d, want %q next %d", tc.from, tc.n, got, next, tc.want, tc.wantNext)
		}
	}
}

// TestRecordsOfCommitted: at read_committed the aborted transactions'
// batches are left out from their first offset to their producer's
// ABORT marker, and only those: the same producer's next transaction,
// committed, is kept, as are another producer's records in between; at
// read_uncommitted (no aborted transactions listed) all are kept.
func TestRecordsOfCommitted(t *testing.T) {
	var set []byte
	txn := func(offset, pid int64, value string) {
		h := record.NewBatchHeader(1000)
		h.BaseOffset, h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.Transactional = offset, pid, 0, 0, true
		set = record.NewBuilder(h).Add(nil, []byte(value), 0).AppendBatch(set)
	}
	marker := func(offset, pid int64) {
		h := record.NewBatchHeader(1000)
		h.BaseOffset, h.ProducerID, h.ProducerEpoch, h.Control, h.Transactional = offset, pid, 0, true, true
		set = record.NewBuilder(h).Add([]byte{0, 0, 0, 0}, []byte{0, 0, 0, 0, 0, 0}, 0).AppendBatch(set)
	}
	txn(0, 7, "aborted")
	txn(1, 8, "committed")
	marker(2, 7) // ABORT
	marker(3, 8) // COMMIT
	txn(4, 7, "later")
	marker(5, 7) // COMMIT
	h := record.NewBatchHeader(1000)
	h.BaseOffset = 6
	set = record.NewBuilder(h).Add(nil, []byte("plain"), 0).AppendBatch(set)
	abort := []kmsg.FetchResponseTopicPartitionAbortedTransaction{{ProducerID: 7, FirstOffset: 0}}
	for _, tc := range []struct {
		aborted  []kmsg.FetchResponseTopicPartitionAbortedTransaction
		from     int64
		n        int
		want     []string
		wantNext int64
	}{
		{nil, 0, 10, []string{"0 aborted", "1 committed", "4 later", "6 plain"}, 7},
		{abort, 0, 10, []string{"1 committed", "4 later", "6 plain"}, 7},
		{abort, 0, 1, []string{"1 committed"}, 2},
		{abort, 2, 10, []string{"4 later", "6 plain"}, 7},
	} {
		recs, next, err := RecordsOf(set, tc.aborted, tc.from, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range recs {
			got = append(got, fmt.Sprintf("%d %s", r.Offset, r.Value))
		}
		if !slices.Equal(got, tc.want) || next != tc.wantNext {
			t.Errorf("aborted %v from %d, n %d: %q next %d, want %q next %d", tc.aborted, tc.from, tc.n, got, next, tc.want, tc.wantNext)
		}
	}
}
