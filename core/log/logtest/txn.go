package logtest

import (
	"fmt"
	"path"
	"reflect"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// snapshotOf is a Snapshotter whose bytes name the offset.
func snapshotOf(offset int64) []byte { return fmt.Appendf(nil, "state@%d", offset) }

func exists(st store.Storage, name string) bool {
	_, err := st.ReadFile(path.Join(Dir, name))
	return err == nil
}

// testTxnIndex: aborted transactions go to the .txnindex of the segment
// holding the marker, created on first use, 34 bytes an entry; lookups
// cross segments; the index survives a reopen, follows truncation and
// retention, and a corrupt one is deleted and reported.
func testTxnIndex(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 40) // 120 offsets over several segments
	segs := l.Segments()
	if len(segs) < 4 {
		t.Fatalf("want >= 4 segments, have %d", len(segs))
	}
	// Aborts whose markers are in segments 1 and 2; the first spans 0..1.
	a1 := log.AbortedTxn{ProducerID: 1, FirstOffset: segs[0].BaseOffset + 2, LastOffset: segs[1].BaseOffset + 1, LastStableOffset: segs[1].BaseOffset + 2}
	a2 := log.AbortedTxn{ProducerID: 2, FirstOffset: segs[1].BaseOffset + 3, LastOffset: segs[1].BaseOffset + 4, LastStableOffset: segs[1].BaseOffset + 5}
	a3 := log.AbortedTxn{ProducerID: 3, FirstOffset: segs[2].BaseOffset, LastOffset: segs[2].BaseOffset + 2, LastStableOffset: segs[2].BaseOffset + 3}
	for _, a := range []log.AbortedTxn{a1, a2, a3, a2} { // a2 twice: a replay skips it
		must(t, l.AddAbortedTxn(a))
	}
	if err := l.AddAbortedTxn(log.AbortedTxn{LastOffset: l.EndOffset()}); err == nil {
		t.Fatal("marker past the log end indexed")
	}
	data, err := st.ReadFile(path.Join(Dir, log.FileName(segs[1].BaseOffset, log.TxnIndexSuffix)))
	must(t, err)
	if len(data) != 2*log.AbortedTxnSize {
		t.Fatalf("segment 1 .txnindex has %d bytes, want %d", len(data), 2*log.AbortedTxnSize)
	}
	if exists(st, log.FileName(segs[0].BaseOffset, log.TxnIndexSuffix)) {
		t.Fatal("a .txnindex without entries exists")
	}
	check := func(l *log.Log, from, upTo int64, want ...log.AbortedTxn) {
		t.Helper()
		if got := l.AbortedTxns(from, upTo); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("AbortedTxns(%d, %d) = %+v, want %+v", from, upTo, got, want)
		}
	}
	check(l, 0, a1.FirstOffset)
	check(l, 0, a1.FirstOffset+1, a1)
	check(l, a1.LastOffset, a2.FirstOffset+1, a1, a2)
	check(l, a1.LastOffset+1, l.EndOffset(), a2, a3)
	check(l, a3.LastOffset+1, l.EndOffset())
	must(t, l.Close())

	l, _ = Open(t, st, SmallConfig(), -1)
	check(l, 0, l.EndOffset(), a1, a2, a3)
	if got := l.TxnIndexSuspect(); got != -1 {
		t.Fatalf("suspect %d after a clean reopen", got)
	}
	// Truncating into segment 1 keeps a1, drops a2 and segment 2's file.
	must(t, l.TruncateTo(a2.LastOffset))
	check(l, 0, 1<<40, a1)
	if exists(st, log.FileName(segs[2].BaseOffset, log.TxnIndexSuffix)) {
		t.Fatal("truncated segment's .txnindex left behind")
	}
	fill(t, l, 20)
	// Retention drops segment 0 and 1 with their indexes.
	must(t, l.DeleteRecordsBefore(segs[2].BaseOffset))
	l.EnforceRetention(0)
	check(l, 0, 1<<40)
	if exists(st, log.FileName(segs[1].BaseOffset, log.TxnIndexSuffix)) {
		t.Fatal("deleted segment's .txnindex left behind")
	}
	must(t, l.AddAbortedTxn(log.AbortedTxn{ProducerID: 4, FirstOffset: l.EndOffset() - 2, LastOffset: l.EndOffset() - 1, LastStableOffset: l.EndOffset()}))
	base := l.Segments()[len(l.Segments())-1].BaseOffset
	must(t, l.Close())

	// A corrupt .txnindex is deleted and reported for a rebuild.
	name := path.Join(Dir, log.FileName(base, log.TxnIndexSuffix))
	must(t, st.WriteFile(name, []byte("short")))
	l, notes := Open(t, st, SmallConfig(), -1)
	expectNote(t, notes, log.FileName(base, log.TxnIndexSuffix), "rebuilt from the log")
	if got := l.TxnIndexSuspect(); got != base {
		t.Fatalf("suspect %d, want %d", got, base)
	}
	check(l, 0, 1<<40)
	must(t, l.Close())
}

// testSnapshots: with a Snapshotter, the log writes <offset>.snapshot at
// every roll (the new base) and at Close (the end), lists them after a
// reopen, and deletes those that no longer describe it.
func testSnapshots(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	l.SetSnapshotter(snapshotOf)
	fill(t, l, 40)
	var bases []int64
	for _, s := range l.Segments()[1:] {
		bases = append(bases, s.BaseOffset)
	}
	if got := l.SnapshotOffsets(); !reflect.DeepEqual(got, bases) {
		t.Fatalf("snapshots %v, want the rolled segments' bases %v", got, bases)
	}
	data, err := l.ReadSnapshot(bases[0])
	must(t, err)
	if string(data) != string(snapshotOf(bases[0])) {
		t.Fatalf("snapshot %q", data)
	}
	leo := l.EndOffset()
	must(t, l.Close())

	l, _ = Open(t, st, SmallConfig(), -1)
	if got := l.SnapshotOffsets(); !reflect.DeepEqual(got, append(bases, leo)) {
		t.Fatalf("after reopen %v, want %v + %d", got, bases, leo)
	}
	// Scan from the middle of a batch returns that batch first.
	var seen []int64
	must(t, l.Scan(bases[1]+1, func(b record.Batch) error {
		seen = append(seen, b.BaseOffset())
		return nil
	}))
	if len(seen) == 0 || seen[0] > bases[1]+1 || seen[len(seen)-1] != leo-3 {
		t.Fatalf("Scan from %d saw %v", bases[1]+1, seen)
	}
	// Truncation drops snapshots past the new end.
	must(t, l.TruncateTo(bases[1]))
	if got := l.SnapshotOffsets(); !reflect.DeepEqual(got, bases[:2]) {
		t.Fatalf("after TruncateTo(%d): %v", bases[1], got)
	}
	// Retention drops snapshots below the first segment.
	must(t, l.DeleteRecordsBefore(bases[1]))
	l.EnforceRetention(0)
	if got := l.SnapshotOffsets(); !reflect.DeepEqual(got, bases[1:2]) {
		t.Fatalf("after retention: %v", got)
	}
	must(t, l.DeleteSnapshot(bases[1]))
	if got := l.SnapshotOffsets(); len(got) != 0 || exists(st, log.FileName(bases[1], log.SnapshotSuffix)) {
		t.Fatalf("DeleteSnapshot left %v", got)
	}
	must(t, l.Close())

	// A snapshot past the log end (e.g. the tail was lost) goes at Open.
	must(t, st.WriteFile(path.Join(Dir, log.FileName(1<<40, log.SnapshotSuffix)), []byte("x")))
	l, notes := Open(t, st, SmallConfig(), -1)
	expectNote(t, notes, log.FileName(1<<40, log.SnapshotSuffix), "outside the log")
	if got := l.SnapshotOffsets(); len(got) != 0 {
		t.Fatalf("snapshots %v", got)
	}
	must(t, l.Close())
}
