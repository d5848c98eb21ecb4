package filestore_test

import (
	"bytes"
	"testing"

	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// TestReadExtentPinsWhatReadCopies: for every offset, byte limit, cut
// (the high watermark or last stable offset) and KIP-74 setting, the
// pinned extent holds exactly the bytes Read copies, and ends at the
// same offset.
func TestReadExtentPinsWhatReadCopies(t *testing.T) {
	l, _ := logtest.Open(t, newFS(t), logtest.SmallConfig(), 0)
	defer l.Close()
	for i := range 12 {
		if _, err := l.Append(logtest.Batch(1+i%4, int64(1000+i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	end := l.EndOffset()
	for off := int64(0); off < end; off++ {
		for _, maxBytes := range []int{0, 30, 100, 200, 500, 1 << 20} {
			for _, upTo := range []int64{off, off + 1, off + 5, end} {
				for _, minOne := range []bool{false, true} {
					want, err := l.Read(off, maxBytes, upTo, minOne)
					if err != nil {
						t.Fatal(err)
					}
					e, err := l.ReadExtent(off, maxBytes, upTo, minOne, true)
					if err != nil {
						t.Fatal(err)
					}
					if e.Bytes != nil {
						t.Fatal("a file store's extent was copied, not pinned")
					}
					var got []byte
					if e.Span != nil {
						got, err = e.Span.(*filestore.Range).ReadAll()
						if err != nil {
							t.Fatal(err)
						}
						e.Span.Release()
					}
					if !bytes.Equal(got, want) || e.Next != nextOffset(want) {
						t.Fatalf("ReadExtent(%d, %d, %d, %v): %d bytes to %d, Read %d bytes to %d",
							off, maxBytes, upTo, minOne, len(got), e.Next, len(want), nextOffset(want))
					}
				}
			}
		}
	}
}

// TestExtentOutlivesRetentionAndCut: an extent pinned before retention
// deletes its segment is still whole; one pinned before the log is cut
// in place (TruncateTo, after an election) reads as short, not as the
// bytes appended after the cut.
func TestExtentOutlivesRetentionAndCut(t *testing.T) {
	l, _ := logtest.Open(t, newFS(t), logtest.SmallConfig(), 0)
	defer l.Close()
	for i := range 30 {
		if _, err := l.Append(logtest.Batch(3, int64(1000+i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	pin := func(off int64) (*filestore.Range, []byte) {
		want, err := l.Read(off, 1<<20, l.EndOffset(), true)
		if err != nil {
			t.Fatal(err)
		}
		e, err := l.ReadExtent(off, 1<<20, l.EndOffset(), true, true)
		if err != nil {
			t.Fatal(err)
		}
		return e.Span.(*filestore.Range), want
	}
	first, firstWant := pin(0)
	last, _ := pin(l.EndOffset() - 1)
	if err := l.DeleteRecordsBefore(l.EndOffset() - 1); err != nil {
		t.Fatal(err)
	}
	if got, err := first.ReadAll(); err != nil || !bytes.Equal(got, firstWant) {
		t.Fatalf("extent of a deleted segment: %d bytes, %v", len(got), err)
	}
	if err := l.TruncateTo(l.EndOffset() - 3); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(logtest.Batch(3, 5000), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := last.ReadAll(); err == nil {
		t.Fatal("an extent past a truncation read as whole")
	}
	first.Release()
	last.Release()
}

func nextOffset(batches []byte) int64 {
	var next int64
	it := record.NewIter(batches)
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		next = b.LastOffset() + 1
	}
	return next
}
