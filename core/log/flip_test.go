package log_test

import (
	"encoding/binary"
	"errors"
	"strings"
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

// TestTxnIndexFlipRebuilt: a byte flipped in a .txnindex entry's producer
// id would hand read_committed consumers an aborted list naming another
// producer, so the aborted transaction's records would show; Open checks
// each entry against its abort marker, deletes the index it contradicts
// and reports the segment for a rebuild from the log (TxnIndexSuspect).
func TestTxnIndexFlipRebuilt(t *testing.T) {
	st := store.NewMem()
	l, _ := logtest.Open(t, st, logtest.SmallConfig(), -1)
	first, err := l.Append(logtest.TxnBatch(5, 0, "k=aborted"), 0)
	if err != nil {
		t.Fatal(err)
	}
	abort, err := l.Append(logtest.Marker(5, false), 0)
	if err != nil {
		t.Fatal(err)
	}
	a := log.AbortedTxn{ProducerID: 5, FirstOffset: first, LastOffset: abort, LastStableOffset: abort + 1}
	if err := l.AddAbortedTxn(a); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	name := logtest.Dir + "/" + log.FileName(0, log.TxnIndexSuffix)
	if err := st.Flip(name, 9, 0x40); err != nil { // the low byte of the producer id
		t.Fatal(err)
	}
	l, notes := logtest.Open(t, st, logtest.SmallConfig(), -1)
	defer func() { _ = l.Close() }()
	if got := l.AbortedTxns(0, l.EndOffset()); len(got) != 0 {
		t.Fatalf("aborted list %+v from a flipped index, want none until the rebuild", got)
	}
	if l.TxnIndexSuspect() != 0 || !strings.Contains(strings.Join(notes, "\n"), "the batch there is pid 5's") {
		t.Fatalf("suspect %d, notes %q: want the index deleted for a rebuild", l.TxnIndexSuspect(), notes)
	}
}

// TestScanRefusesFlippedBatch: the owner rebuilds producer state, leader
// epochs and coordinators with Scan; a batch that fails its CRC, or whose
// base offset flipped, ends the scan with ErrCorrupt before fn sees it.
func TestScanRefusesFlippedBatch(t *testing.T) {
	for _, off := range []int{record.HeaderSize + 3, 7} { // a record; the base offset
		_, l := flipped(t, off, 0x01)
		calls := 0
		err := l.Scan(0, func(record.Batch) error { calls++; return nil })
		if !errors.Is(err, log.ErrCorrupt) || calls != 0 {
			t.Fatalf("byte %d flipped: Scan = %v after %d batches, want ErrCorrupt before any", off, err, calls)
		}
	}
}

// TestReadPastFlippedIndexEntry: an offset index entry whose position
// changed at rest, still in order (so Open's checks pass), pointed a
// lookup at a later batch and Read skipped the records in between; find
// now sees that the batch there does not end at the entry's offset and
// scans from the segment's start. Scan, which reads from the entry in
// its own windows, does the same, and so do both when the entry points
// inside a batch.
func TestReadPastFlippedIndexEntry(t *testing.T) {
	st := store.NewMem()
	l, _ := logtest.Open(t, st, logtest.SmallConfig(), -1)
	for i := range 12 {
		if _, err := l.Append(logtest.Batch(3, int64(1000+10*i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Roll(0); err != nil {
		t.Fatal(err)
	}
	seg := l.Segments()[0]
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if len(seg.IndexEntries) < 2 {
		t.Fatalf("want 2 index entries or more, have %v", seg.IndexEntries)
	}
	e := seg.IndexEntries[0]
	batchSize := int64(len(logtest.Batch(3, 1000)))
	if e.Position+batchSize >= seg.IndexEntries[1].Position {
		t.Fatalf("entries %v: no batch between the first two", seg.IndexEntries)
	}
	name := logtest.Dir + "/" + log.FileName(0, log.IndexSuffix)
	ix, err := st.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	holds := func(what string, b record.Batch) {
		t.Helper()
		if b == nil || b.BaseOffset() > e.Offset || b.LastOffset() < e.Offset {
			t.Errorf("%s(%d) starts with a batch not holding it: %v", what, e.Offset, b)
		}
	}
	for _, pos := range []int64{e.Position + batchSize, e.Position + 1} { // the next batch; inside this one
		binary.BigEndian.PutUint32(ix[4:], uint32(pos))
		if err := st.WriteFile(name, ix); err != nil {
			t.Fatal(err)
		}
		l, _ = logtest.Open(t, st, logtest.SmallConfig(), -1)
		p, err := l.Read(e.Offset, 1<<20, l.EndOffset(), true)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := record.NewIter(p).Next()
		holds("Read", b)
		var first record.Batch
		if err := l.Scan(e.Offset, func(b record.Batch) error {
			if first == nil {
				first = append(record.Batch(nil), b...)
			}
			return nil
		}); err != nil {
			t.Fatalf("entry at %d: Scan: %v", pos, err)
		}
		holds("Scan", first)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
