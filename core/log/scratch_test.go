package log_test

import (
	"bytes"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// scratchLogs opens two logs of 20 batches each, in directories of their
// own, sharing scratch as one engine's logs do.
func scratchLogs(t *testing.T, scratch *log.Scratch) (a, b *log.Log) {
	t.Helper()
	cfg := logtest.SmallConfig()
	cfg.SegmentBytes = 1 << 20
	cfg.Scratch = scratch
	st := store.NewMem()
	var logs [2]*log.Log
	for i, dir := range []string{"a-0", "b-0"} {
		l, notes, err := log.Open(st, dir, cfg, -1, 0)
		if err != nil {
			t.Fatalf("Open %s: %v (%q)", dir, err, notes)
		}
		t.Cleanup(func() { _ = l.Close() })
		for j := range 20 {
			if _, err := l.Append(logtest.Batch(3, int64(1000*i+j)), 0); err != nil {
				t.Fatal(err)
			}
		}
		logs[i] = l
	}
	return logs[0], logs[1]
}

// TestScratchLendsEachScanItsOwnBuffer: a scan inside another's callback,
// of another log sharing the Scratch, reads into a buffer of its own, so
// the outer batch is still what the log holds when the inner scan is
// done.
func TestScratchLendsEachScanItsOwnBuffer(t *testing.T) {
	a, b := scratchLogs(t, &log.Scratch{})
	if err := b.Scan(0, func(record.Batch) error { return nil }); err != nil { // one buffer lent and back
		t.Fatal(err)
	}
	seen := 0
	err := a.Scan(0, func(outer record.Batch) error {
		kept := bytes.Clone(outer)
		if err := b.Scan(0, func(record.Batch) error { return nil }); err != nil {
			return err
		}
		if !bytes.Equal(outer, kept) {
			t.Fatalf("batch at offset %d changed under a nested scan of another log", outer.BaseOffset())
		}
		seen++
		return nil
	})
	if err != nil || seen != 20 {
		t.Fatalf("Scan: %v after %d batches, want 20", err, seen)
	}
}

// TestScratchSavesTheScanBuffers: with a Scratch a scan allocates fewer
// objects than without, its read buffer lent rather than made.
func TestScratchSavesTheScanBuffers(t *testing.T) {
	allocs := func(scratch *log.Scratch) float64 {
		a, _ := scratchLogs(t, scratch)
		return testing.AllocsPerRun(20, func() {
			if err := a.Scan(0, func(record.Batch) error { return nil }); err != nil {
				t.Fatal(err)
			}
		})
	}
	with, without := allocs(&log.Scratch{}), allocs(nil)
	if with >= without {
		t.Fatalf("a scan allocates %.0f objects with a Scratch, %.0f without", with, without)
	}
}
