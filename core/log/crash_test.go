package log_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/store"
)

func TestCrashDropsUnsyncedThenRecovers(t *testing.T) {
	m := store.NewMem()
	l, _ := logtest.Open(t, m, logtest.SmallConfig(), -1)
	for i := 0; i < 30; i++ {
		if _, err := l.Append(logtest.Batch(3, int64(i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Flush(0); err != nil {
		t.Fatal(err)
	}
	flushed := l.EndOffset()
	for i := 0; i < 3; i++ { // stays in the active segment? not necessarily: a roll syncs
		if _, err := l.Append(logtest.Batch(3, int64(100+i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	segsBefore := len(l.Segments())
	m.Crash()
	l2, notes := logtest.Open(t, m, logtest.SmallConfig(), 0)
	defer l2.Close()
	// Rolled segments were synced when sealed, so the log keeps at least
	// the flushed offsets and at most everything appended.
	if l2.EndOffset() < flushed || l2.EndOffset() > flushed+9 {
		t.Fatalf("LEO after crash %d, flushed %d (notes %q)", l2.EndOffset(), flushed, notes)
	}
	if segsBefore == len(l2.Segments()) && l2.EndOffset() != flushed {
		// Nothing rolled after the flush: everything unsynced is gone.
		t.Fatalf("LEO after crash %d, want %d", l2.EndOffset(), flushed)
	}
	logtest.ReadAll(t, l2)
	if _, err := l2.Append(logtest.Batch(1, 0), 0); err != nil {
		t.Fatal(err)
	}
}

func TestCrashMidIndexAppend(t *testing.T) {
	m := store.NewMem()
	cfg := logtest.SmallConfig()
	cfg.SegmentBytes = 1 << 20
	l, _ := logtest.Open(t, m, cfg, -1)
	for i := 0; i < 20; i++ {
		if _, err := l.Append(logtest.Batch(3, int64(i)), 0); err != nil {
			t.Fatal(err)
		}
		if i == 9 {
			if err := l.Flush(0); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := l.Segments()[0]
	m.Crash()
	l2, notes := logtest.Open(t, m, cfg, 0)
	defer l2.Close()
	if l2.EndOffset() != 30 {
		t.Fatalf("LEO %d, want 30 (notes %q)", l2.EndOffset(), notes)
	}
	got := l2.Segments()[0]
	for i, e := range got.IndexEntries {
		if e != want.IndexEntries[i] {
			t.Fatalf("entry %d = %v, want %v", i, e, want.IndexEntries[i])
		}
	}
}

// FuzzOffsetIndexLookup checks the binary search against a linear scan on
// arbitrary index bytes: it must never panic, and on a well-formed
// (sorted) index it must find the largest entry <= target.
func FuzzOffsetIndexLookup(f *testing.F) {
	f.Add([]byte{0, 0, 0, 5, 0, 0, 0, 10, 0, 0, 0, 9, 0, 0, 1, 0}, int64(7), int64(100))
	f.Add([]byte{}, int64(0), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, base, target int64) {
		base &= 1<<40 - 1
		ix, err := log.ParseOffsetIndex(base, data)
		if err != nil {
			if len(data)%8 == 0 {
				t.Fatalf("rejected %d bytes", len(data))
			}
			return
		}
		ix.Lookup(target) // arbitrary bytes: only must not panic
		// Sort the entries to make a well-formed index.
		es := ix.Entries()
		sort.Slice(es, func(i, j int) bool { return es[i].Offset < es[j].Offset })
		var buf []byte
		for _, e := range es {
			buf = binary.BigEndian.AppendUint32(buf, uint32(e.Offset-base))
			buf = binary.BigEndian.AppendUint32(buf, uint32(e.Position))
		}
		sorted, _ := log.ParseOffsetIndex(base, buf)
		got, steps := sorted.Lookup(target)
		want := log.IndexEntry{Offset: base}
		found := false
		for _, e := range es {
			if e.Offset <= target {
				want, found = e, true
			}
		}
		if got.Offset != want.Offset || (!found && got.Position != 0) {
			t.Fatalf("Lookup(%d) = %v, want %v (entries %v)", target, got, want, es)
		}
		if len(es) > 0 && (len(steps) == 0 || len(steps) > 2+bitsLen(len(es))) {
			t.Fatalf("%d probes for %d entries", len(steps), len(es))
		}
	})
}

func bitsLen(n int) int {
	b := 0
	for ; n > 0; n >>= 1 {
		b++
	}
	return b
}

// FuzzRecovery appends arbitrary bytes to the active segment (and to an
// index) and reopens: Open must not panic, must succeed, and must leave a
// readable log that keeps every batch written before.
func FuzzRecovery(f *testing.F) {
	f.Add([]byte{}, []byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 80, 0, 0, 0, 0, 2}, []byte{1, 2, 3})
	f.Add([]byte(logtest.Batch(2, 5)), []byte{0, 0, 0, 1, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, logTail, indexTail []byte) {
		m := store.NewMem()
		cfg := logtest.SmallConfig()
		cfg.IndexIntervalBytes = 50
		l, _ := logtest.Open(t, m, cfg, -1)
		for i := 0; i < 12; i++ {
			if _, err := l.Append(logtest.Batch(2, int64(i)), 0); err != nil {
				t.Fatal(err)
			}
		}
		end := l.EndOffset()
		segs := l.Segments()
		active := segs[len(segs)-1]
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		for name, tail := range map[string][]byte{
			logtest.Dir + "/" + active.Name:                                      logTail,
			logtest.Dir + "/" + log.FileName(active.BaseOffset, log.IndexSuffix): indexTail,
		} {
			fl, err := m.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			_ = fl.Append(tail)
			_ = fl.Close()
		}
		l2, notes, err := log.Open(m, logtest.Dir, cfg, 0, 0)
		if err != nil {
			t.Fatalf("Open: %v (notes %q)", err, notes)
		}
		defer l2.Close()
		if l2.EndOffset() < end {
			t.Fatalf("LEO %d < %d (notes %q)", l2.EndOffset(), end, notes)
		}
		logtest.ReadAll(t, l2)
		if _, err := l2.Append(logtest.Batch(1, 0), 0); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := l2.OffsetForTimestamp(3); err != nil {
			t.Fatal(err)
		}
	})
}

// indexWrites counts the index files a storage replaces (WriteFile).
type indexWrites struct {
	store.Storage
	n *int
}

func (w indexWrites) WriteFile(name string, data []byte) error {
	if strings.HasSuffix(name, log.IndexSuffix) || strings.HasSuffix(name, log.TimeIndexSuffix) {
		*w.n++
	}
	return w.Storage.WriteFile(name, data)
}

// atSync is a storage whose index entries wait for the segment's sync,
// as the file store's do (store.IndexesAtSync).
type atSync struct{ indexWrites }

func (atSync) IndexesAtSync() {}

// TestRecoveryAppendsToALaggingIndex: an index that holds only the first
// of the entries the log makes, as a kill -9 leaves one whose entries
// wait for the segment's sync, is completed by appending what it lacks,
// not replaced; one that holds other entries is replaced. Either way the
// file then holds the index it held before, once. On a storage whose
// entries wait for the sync, the ones a lagging index lacks wait too:
// Open does not write them, the log's close does.
func TestRecoveryAppendsToALaggingIndex(t *testing.T) {
	m := store.NewMem()
	cfg := logtest.SmallConfig()
	cfg.SegmentBytes = 1 << 20
	l, _ := logtest.Open(t, m, cfg, -1)
	for i := range 20 {
		if _, err := l.Append(logtest.Batch(3, int64(i)), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	want := l.Segments()[0]
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	name := logtest.Dir + "/" + log.FileName(0, log.IndexSuffix)
	full, err := m.ReadFile(name)
	if err != nil || len(want.IndexEntries) < 4 {
		t.Fatalf("%d index entries (%v): too few to cut", len(want.IndexEntries), err)
	}
	half := len(full) / 2 / log.OffsetEntrySize * log.OffsetEntrySize
	for _, c := range []struct {
		name     string
		index    []byte
		atSync   bool
		replaced int
		note     string
		atOpen   []byte // what the file holds once Open returns
	}{
		{"lagging", full[:half], false, 0, "lag", full},
		{"lagging, entries at sync", full[:half], true, 0, "lag", full[:half]},
		{"without its first entry", full[log.OffsetEntrySize:half], false, 1, "rebuilt", full},
		{"without its first entry, entries at sync", full[log.OffsetEntrySize:half], true, 1, "rebuilt", full},
	} {
		if err := m.WriteFile(name, c.index); err != nil {
			t.Fatal(err)
		}
		replaced := 0
		w := indexWrites{m, &replaced}
		var st store.Storage = w
		if c.atSync {
			st = atSync{w}
		}
		l2, notes, err := log.Open(st, logtest.Dir, cfg, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if replaced != c.replaced || !strings.Contains(strings.Join(notes, "\n"), c.note) {
			t.Errorf("%s: recovery replaced %d index files (notes %q), want %d and a note %q", c.name, replaced, notes, c.replaced, c.note)
		}
		if got := l2.Segments()[0].IndexEntries; !slices.Equal(got, want.IndexEntries) {
			t.Errorf("%s: index entries after recovery %v, want %v", c.name, got, want.IndexEntries)
		}
		if got, _ := m.ReadFile(name); !bytes.Equal(got, c.atOpen) {
			t.Errorf("%s: the index file holds %d bytes once Open returned, want %d", c.name, len(got), len(c.atOpen))
		}
		if err := l2.Close(); err != nil {
			t.Fatal(err)
		}
		if got, _ := m.ReadFile(name); !bytes.Equal(got, full) {
			t.Errorf("%s: the index file holds %d bytes after recovery, want the %d it held", c.name, len(got), len(full))
		}
	}
}
