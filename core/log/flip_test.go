package log_test

import (
	"errors"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// flipped builds a compacted log of two sealed segments of one batch
// each (k=a then k=b) and an active one, synced, and flips byte off of
// the first segment's .log at rest.
func flipped(t *testing.T, off int, mask byte) (*store.Mem, *log.Log) {
	t.Helper()
	st := store.NewMem()
	cfg := logtest.CompactConfig()
	l, _ := logtest.Open(t, st, cfg, -1)
	for _, v := range []string{"a", "b"} {
		bl := record.NewBuilder(record.NewBatchHeader(0)).Add([]byte("k"), []byte(v), 0)
		if _, err := l.Append(bl.Build(), 0); err != nil {
			t.Fatal(err)
		}
		if err := l.Roll(0); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(0); err != nil {
		t.Fatal(err)
	}
	if err := st.Flip(logtest.Dir+"/00000000000000000000.log", off, mask); err != nil {
		t.Fatal(err)
	}
	return st, l
}

// TestCleanerRefusesFlippedBatch: a byte flipped in a record of a sealed
// segment stops the cleaner with ErrCorrupt; before, the cleaner decoded
// the damaged record and rewrote it under a fresh CRC, so consumers
// received a corrupt record that passed their CRC check. The damaged
// batch stays as it is, for the consumer's CRC check to catch.
func TestCleanerRefusesFlippedBatch(t *testing.T) {
	_, l := flipped(t, record.HeaderSize+3, 0x20) // inside the first record
	ctx := log.CleanContext{Now: 0, UpTo: l.EndOffset(), Force: true}
	if _, err := l.Clean(ctx, 1<<20); !errors.Is(err, log.ErrCorrupt) {
		t.Fatalf("Clean over a flipped batch: %v, want ErrCorrupt", err)
	}
	p, err := l.Read(0, 1<<20, l.EndOffset(), true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := record.NewIter(p).Next()
	if err := record.ValidateStored(b); !errors.Is(err, record.ErrCRC) {
		t.Fatalf("the flipped batch reads %v, want a CRC failure", err)
	}
}

// TestReadRefusesFlippedBaseOffset: the CRC does not cover a batch's base
// offset; a flip there must not move records to other offsets unseen.
// Read (which Fetch serves) and the cleaner refuse the batch instead.
func TestReadRefusesFlippedBaseOffset(t *testing.T) {
	_, l := flipped(t, 7, 0x01) // base offset 0 reads as 1, the next segment's
	if _, err := l.Read(0, 1<<20, l.EndOffset(), true); !errors.Is(err, log.ErrCorrupt) {
		t.Fatalf("Read of a batch whose base offset flipped: %v, want ErrCorrupt", err)
	}
	ctx := log.CleanContext{Now: 0, UpTo: l.EndOffset(), Force: true}
	if _, err := l.Clean(ctx, 1<<20); !errors.Is(err, log.ErrCorrupt) {
		t.Fatalf("Clean over a batch whose base offset flipped: %v, want ErrCorrupt", err)
	}
}
