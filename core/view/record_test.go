package view

import (
	"fmt"
	"slices"
	"testing"

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
		recs, next, err := RecordsOf(set, tc.from, tc.n)
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
