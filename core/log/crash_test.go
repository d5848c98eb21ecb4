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

// TestRecoveryAppendsToALaggingIndex: an index that holds only the first
// of the entries the log makes, as a crash can leave one, is completed by
// appending what it lacks, not replaced; one that holds other entries is
// replaced. Either way the file then holds the index it held before, once.
func TestRecoveryAppendsToALaggingIndex(t *testing.T) {
	m, cfg, want, full := indexedLog(t)
	name := logtest.Dir + "/" + log.FileName(0, log.IndexSuffix)
	half := len(full) / 2 / log.OffsetEntrySize * log.OffsetEntrySize
	for _, c := range []struct {
		name     string
		index    []byte
		replaced int
		note     string
	}{
		{"lagging", full[:half], 0, "lag"},
		{"without its first entry", full[log.OffsetEntrySize:half], 1, "rebuilt"},
	} {
		if err := m.WriteFile(name, c.index); err != nil {
			t.Fatal(err)
		}
		replaced := 0
		l2, notes, err := log.Open(indexWrites{m, &replaced}, logtest.Dir, cfg, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if replaced != c.replaced || !strings.Contains(strings.Join(notes, "\n"), c.note) {
			t.Errorf("%s: recovery replaced %d index files (notes %q), want %d and a note %q", c.name, replaced, notes, c.replaced, c.note)
		}
		if got := l2.Segments()[0].IndexEntries; !slices.Equal(got, want.IndexEntries) {
			t.Errorf("%s: index entries after recovery %v, want %v", c.name, got, want.IndexEntries)
		}
		if got, _ := m.ReadFile(name); !bytes.Equal(got, full) {
			t.Errorf("%s: the index file holds %d bytes once Open returned, want the %d it held", c.name, len(got), len(full))
		}
		if err := l2.Close(); err != nil {
			t.Fatal(err)
		}
		if got, _ := m.ReadFile(name); !bytes.Equal(got, full) {
			t.Errorf("%s: the index file holds %d bytes after the close, want the %d it held", c.name, len(got), len(full))
		}
	}
}

// TestRecoveryLeavesTheActiveIndexesUnread: on a storage whose index
// entries wait for the segment's sync, an unclean open rebuilds the
// active segment's indexes from the log without opening their files,
// whatever they hold; the first sync makes them what the log says,
// appending to a lagging one only what it lacks and taking a truncation
// before it into account, and a clean open after that trusts them.
func TestRecoveryLeavesTheActiveIndexesUnread(t *testing.T) {
	_, _, _, full := indexedLog(t) // every indexedLog is the same log
	name := logtest.Dir + "/" + log.FileName(0, log.IndexSuffix)
	half := len(full) / 2 / log.OffsetEntrySize * log.OffsetEntrySize
	stale := append(slices.Clone(full), full[len(full)-log.OffsetEntrySize:]...)
	for _, c := range []struct {
		name  string
		index []byte // nil: no file
		cut   bool   // truncate the log to its third index entry before the close
		torn  bool   // the log torn after its first batch, which makes no entry
	}{
		{"lagging", full[:half], false, false},
		{"without its first entry", full[log.OffsetEntrySize:half], false, false},
		{"longer than the log's", stale, false, false},
		{"missing", nil, false, false},
		{"lagging, truncated before the first sync", full[:half], true, false},
		{"whole, the log torn after its first batch", full, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, cfg, want, _ := indexedLog(t)
			if err := m.WriteFile(name, c.index); err != nil {
				t.Fatal(err)
			}
			if c.index == nil {
				if err := m.Remove(name); err != nil {
					t.Fatal(err)
				}
			}
			wantNotes, wantFile := 0, full
			if c.torn {
				f, err := m.Open(logtest.Dir + "/" + want.Name)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.Truncate(int64(len(logtest.Batch(3, 0))) + 5); err != nil {
					t.Fatal(err)
				}
				_ = f.Close()
				wantNotes, wantFile = 1, nil
			}
			opened, replaced, appended := 0, 0, 0
			st := atSync{indexOpens{indexWrites{m, &replaced}, &opened, &appended}}
			l, notes, err := log.Open(st, logtest.Dir, cfg, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if opened != 0 || replaced != 0 || len(notes) != wantNotes {
				t.Errorf("Open opened %d index files and replaced %d (notes %q), want none and %d notes", opened, replaced, notes, wantNotes)
			}
			if got := l.Segments()[0].IndexEntries; !c.torn && !slices.Equal(got, want.IndexEntries) || c.torn && len(got) != 0 {
				t.Errorf("index entries after recovery %v, want %v", got, want.IndexEntries)
			}
			if got, err := m.ReadFile(name); !bytes.Equal(got, c.index) || c.index == nil && err == nil {
				t.Errorf("the index file holds %d bytes once Open returned (%v), want the %d it held", len(got), err, len(c.index))
			}
			if c.cut {
				third := want.IndexEntries[2].Offset
				if err := l.TruncateTo(third); err != nil {
					t.Fatal(err)
				}
				wantFile = full[:2*log.OffsetEntrySize]
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if got, _ := m.ReadFile(name); !bytes.Equal(got, wantFile) {
				t.Errorf("the index file holds %d bytes after the close, want %d", len(got), len(wantFile))
			}
			if c.name == "lagging" && appended != len(full)-half {
				t.Errorf("the close appended %d bytes to the index, want the %d it lacked", appended, len(full)-half)
			}
			clean := cfg
			clean.CleanShutdown = true
			l2, notes, err := log.Open(st, logtest.Dir, clean, -1, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer l2.Close()
			if len(notes) != 0 || !c.torn && l2.Segments()[0].IndexEntries == nil {
				t.Errorf("a clean open after it: notes %q, entries %v", notes, l2.Segments()[0].IndexEntries)
			}
		})
	}
}

// indexedLog is one segment of 20 batches, closed, with its index file's
// bytes.
func indexedLog(t *testing.T) (*store.Mem, log.Config, log.SegmentInfo, []byte) {
	t.Helper()
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
	full, err := m.ReadFile(logtest.Dir + "/" + log.FileName(0, log.IndexSuffix))
	if err != nil || len(want.IndexEntries) < 4 {
		t.Fatalf("%d index entries (%v): too few to cut", len(want.IndexEntries), err)
	}
	return m, cfg, want, full
}

// indexWrites counts the index files a storage replaces (WriteFile).
type indexWrites struct {
	store.Storage
	n *int
}

func (w indexWrites) WriteFile(name string, data []byte) error {
	if isIndex(name) {
		*w.n++
	}
	return w.Storage.WriteFile(name, data)
}

// indexOpens counts the index files a storage opens, and the bytes
// appended to them.
type indexOpens struct {
	indexWrites
	n, appended *int
}

func (o indexOpens) Open(name string) (store.File, error) {
	f, err := o.Storage.Open(name)
	if err != nil || !isIndex(name) {
		return f, err
	}
	*o.n++
	return appendCount{f, o.appended}, nil
}

type appendCount struct {
	store.File
	n *int
}

func (a appendCount) Append(p []byte) error {
	*a.n += len(p)
	return a.File.Append(p)
}

func isIndex(name string) bool {
	return strings.HasSuffix(name, log.IndexSuffix) || strings.HasSuffix(name, log.TimeIndexSuffix)
}

// atSync is a storage whose index entries wait for the segment's sync,
// as the file store's do (store.IndexesAtSync).
type atSync struct{ indexOpens }

func (atSync) IndexesAtSync() {}
