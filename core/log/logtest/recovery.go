package logtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/store"
)

// The recovery cases: damage the files the way a crash or a bad disk
// would, reopen, and check both the repair notes and the resulting log.

// rewriteTail replaces the bytes of name from pos on.
func rewriteTail(t *testing.T, st store.Storage, name string, pos int64, tail []byte) {
	t.Helper()
	f, err := st.Open(name)
	must(t, err)
	defer f.Close()
	must(t, f.Truncate(pos))
	must(t, f.Append(tail))
	must(t, f.Sync())
}

func activeLog(l *log.Log) string {
	segs := l.Segments()
	return Dir + "/" + segs[len(segs)-1].Name
}

func expectNote(t *testing.T, notes []string, parts ...string) {
	t.Helper()
	for _, n := range notes {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(n, p)
		}
		if ok {
			return
		}
	}
	t.Fatalf("no note containing %q in %q", parts, notes)
}

func testRecoverShortTail(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 25)
	end, name := l.EndOffset(), activeLog(l)
	size := l.Segments()[len(l.Segments())-1].Size
	must(t, l.Close())
	torn := Batch(3, 5)
	rewriteTail(t, st, name, size, torn[:37])
	l2, notes := Open(t, st, SmallConfig(), 0)
	defer l2.Close()
	expectNote(t, notes, "orders-0: truncated 37 bytes of a torn batch at position", fmt.Sprint(size))
	if l2.EndOffset() != end {
		t.Fatalf("LEO %d, want %d", l2.EndOffset(), end)
	}
	ReadAll(t, l2)
}

func testRecoverFlippedCRC(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 25)
	segs := l.Segments()
	last := segs[len(segs)-1]
	must(t, l.Close())
	data, err := st.ReadFile(Dir + "/" + last.Name)
	must(t, err)
	// Flip a byte inside the last batch's records.
	n := len(Batch(3, 1000))
	pos := int64(len(data) - n)
	tail := append([]byte(nil), data[pos:]...)
	tail[len(tail)-3] ^= 0xff
	rewriteTail(t, st, Dir+"/"+last.Name, pos, tail)
	l2, notes := Open(t, st, SmallConfig(), 0)
	defer l2.Close()
	expectNote(t, notes, "truncated", "CRC")
	if l2.EndOffset() != last.NextOffset-3 {
		t.Fatalf("LEO %d, want %d", l2.EndOffset(), last.NextOffset-3)
	}
	ReadAll(t, l2)
}

func segmentsEqualIgnoringSize(a, b []log.SegmentInfo) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func testRecoverDeletedIndex(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 40)
	want := l.Segments()
	must(t, l.Close())
	must(t, st.Remove(Dir+"/"+log.FileName(want[1].BaseOffset, log.IndexSuffix)))
	must(t, st.Remove(Dir+"/"+log.FileName(want[0].BaseOffset, log.TimeIndexSuffix)))
	l2, notes := Open(t, st, SmallConfig(), 0)
	defer l2.Close()
	expectNote(t, notes, "rebuilt "+log.FileName(want[1].BaseOffset, log.IndexSuffix)+" (missing)")
	expectNote(t, notes, "rebuilt "+log.FileName(want[0].BaseOffset, log.TimeIndexSuffix)+" (missing)")
	if got := l2.Segments(); !segmentsEqualIgnoringSize(got, want) {
		t.Fatalf("segments after rebuild\n got %v\nwant %v", got, want)
	}
}

func testRecoverPartialIndexEntry(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 40)
	want := l.Segments()
	must(t, l.Close())
	for _, s := range []log.SegmentInfo{want[0], want[len(want)-1]} {
		name := Dir + "/" + log.FileName(s.BaseOffset, log.IndexSuffix)
		f, err := st.Open(name)
		must(t, err)
		if f.Size() < 8 {
			must(t, f.Append([]byte{0, 0, 1}))
		} else {
			must(t, f.Truncate(f.Size()-3))
		}
		must(t, f.Sync())
		must(t, f.Close())
	}
	l2, notes := Open(t, st, SmallConfig(), 0)
	defer l2.Close()
	expectNote(t, notes, "rebuilt 00000000000000000000.index (size", "not a multiple of 8")
	if got := l2.Segments(); !segmentsEqualIgnoringSize(got, want) {
		t.Fatalf("segments after rebuild\n got %v\nwant %v", got, want)
	}
}

func testRecoverTornOlderSegment(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 40)
	segs := l.Segments()
	must(t, l.Close())
	name := Dir + "/" + segs[1].Name
	rewriteTail(t, st, name, segs[1].Size-5, nil)
	l2, notes := Open(t, st, SmallConfig(), 0)
	defer l2.Close()
	expectNote(t, notes, "truncated", segs[1].Name)
	expectNote(t, notes, "deleted segment "+segs[2].Name)
	if n := len(l2.Segments()); n != 2 {
		t.Fatalf("%d segments left, want 2", n)
	}
	if l2.EndOffset() != segs[1].NextOffset-3 {
		t.Fatalf("LEO %d, want %d", l2.EndOffset(), segs[1].NextOffset-3)
	}
	ReadAll(t, l2)
	_, err := l2.Append(Batch(1, 1), 0)
	must(t, err)
}

func testRecoverStrayFiles(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 5)
	must(t, l.Close())
	must(t, st.WriteFile(Dir+"/00000000000000000000.log.deleted", []byte("x")))
	must(t, st.WriteFile(Dir+"/00000000000000099999.index", []byte("12345678")))
	must(t, st.WriteFile(Dir+"/leader-epoch-checkpoint", []byte("0\n")))
	l2, notes := Open(t, st, SmallConfig(), 0)
	defer l2.Close()
	expectNote(t, notes, "deleted leftover file 00000000000000000000.log.deleted")
	expectNote(t, notes, "deleted 00000000000000099999.index (no matching .log file)")
	if _, err := st.ReadFile(Dir + "/leader-epoch-checkpoint"); err != nil {
		t.Fatalf("foreign file removed: %v", err)
	}
}
