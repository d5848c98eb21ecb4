package log_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// TestOpenAfterCleanShutdown: a log opened after a clean shutdown syncs
// nothing it need not (an armed sync fault does not fire), and reads what
// it held; opened as after a crash it syncs its active segment again (the
// same fault fails the open).
func TestOpenAfterCleanShutdown(t *testing.T) {
	st := store.NewMem()
	l, _ := logtest.Open(t, st, log.DefaultConfig(), -1)
	bl := record.NewBuilder(record.NewBatchHeader(0)).Add(nil, []byte("v"), 0)
	if _, err := l.Append(bl.Build(), 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(0); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	st.Arm(store.Fault{Op: store.OpSync, Match: ".log", Nth: 1, Err: store.ErrIO})
	cfg := log.DefaultConfig()
	cfg.CleanShutdown = true
	clean, _, err := log.Open(st, logtest.Dir, cfg, -1, 0)
	if err != nil {
		t.Fatalf("open after a clean shutdown synced: %v", err)
	}
	if clean.EndOffset() != 1 {
		t.Errorf("log end %d, want 1", clean.EndOffset())
	}
	if err := clean.Abandon(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := log.Open(st, logtest.Dir, log.DefaultConfig(), -1, 0); err == nil {
		t.Error("open as after a crash did not sync its active segment (the armed fault did not fire)")
	}
}

// TestCloseSnapshotsOnlyWhenMoved: Close writes a producer snapshot when
// the log moved past its last one, and not again when it did not (as
// Kafka's ProducerStateManager.takeSnapshot), so a broker of idle
// partitions stops without a file write each.
func TestCloseSnapshotsOnlyWhenMoved(t *testing.T) {
	st := store.NewMem()
	asked := 0
	open := func() *log.Log {
		l, _, err := log.Open(st, logtest.Dir, log.DefaultConfig(), -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		l.SetSnapshotter(func(int64) []byte { asked++; return []byte("state") })
		return l
	}
	l := open()
	bl := record.NewBuilder(record.NewBatchHeader(0)).Add(nil, []byte("v"), 0)
	if _, err := l.Append(bl.Build(), 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Fatalf("closing a log that moved took %d snapshots, want 1", asked)
	}
	if err := open().Close(); err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Errorf("closing an idle log took a snapshot again (%d in all)", asked)
	}
	if got := open().SnapshotOffsets(); len(got) != 1 || got[0] != 1 {
		t.Errorf("snapshots at %v, want [1]", got)
	}
}

// readCounter counts the bytes read from the .log files it opens.
type readCounter struct {
	store.Storage
	read *int64
}

func (r readCounter) Open(name string) (store.File, error) {
	f, err := r.Storage.Open(name)
	if err != nil || !strings.HasSuffix(name, log.LogSuffix) {
		return f, err
	}
	return countedFile{f, r.read}, nil
}

type countedFile struct {
	store.File
	read *int64
}

func (c countedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.File.ReadAt(p, off)
	*c.read += int64(n)
	return n, err
}

// TestCleanOpenReadsOnlyTheTail: after a clean shutdown the active
// segment's indexes are trusted, as an older segment's are (Kafka's
// LogLoader recovers nothing then): Open reads only the batches after the
// last offset index entry, not the whole segment, and reads the same
// log; a tail that is torn all the same is still found and cut.
func TestCleanOpenReadsOnlyTheTail(t *testing.T) {
	st := store.NewMem()
	l, _ := logtest.Open(t, st, log.DefaultConfig(), -1)
	value := make([]byte, 1000)
	for i := range 200 {
		bl := record.NewBuilder(record.NewBatchHeader(0)).Add(nil, value, int64(i))
		if _, err := l.Append(bl.Build(), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	open := func(clean bool) (*log.Log, []string, int64) {
		t.Helper()
		var read int64
		cfg := log.DefaultConfig()
		cfg.CleanShutdown = clean
		l, notes, err := log.Open(readCounter{st, &read}, logtest.Dir, cfg, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		return l, notes, read
	}
	crashed, _, whole := open(false)
	if err := crashed.Close(); err != nil {
		t.Fatal(err)
	}
	clean, notes, tail := open(true)
	if whole < 200*1000 || tail > 2*int64(log.DefaultConfig().IndexIntervalBytes)+1000 {
		t.Errorf("read %d bytes of the log opening as after a crash, %d after a clean shutdown", whole, tail)
	}
	if clean.EndOffset() != 200 || len(notes) != 0 {
		t.Errorf("after a clean shutdown: log end %d, notes %q", clean.EndOffset(), notes)
	}
	if ts, off := clean.MaxTimestamp(); ts != 199 || off != 199 {
		t.Errorf("after a clean shutdown: largest timestamp %d at %d, want 199 at 199", ts, off)
	}
	if err := clean.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := st.Open(logtest.Dir + "/" + log.FileName(0, log.LogSuffix))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Append([]byte("torn")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	torn, notes, _ := open(true)
	if torn.EndOffset() != 200 || len(notes) == 0 {
		t.Errorf("a torn tail after a clean shutdown: log end %d, notes %q", torn.EndOffset(), notes)
	}
}

// askCounter counts a storage's listings and its opens and reads of
// names that do not exist.
type askCounter struct {
	store.Storage
	lists, missing *int
}

func (a askCounter) List(dir string) ([]string, error) {
	*a.lists++
	return a.Storage.List(dir)
}

func (a askCounter) Open(name string) (store.File, error) {
	f, err := a.Storage.Open(name)
	a.count(err)
	return f, err
}

func (a askCounter) ReadFile(name string) ([]byte, error) {
	b, err := a.Storage.ReadFile(name)
	a.count(err)
	return b, err
}

func (a askCounter) count(err error) {
	if errors.Is(err, store.ErrNotExist) {
		*a.missing++
	}
}

// TestOpenAsksForWhatItListed: opening a log of several segments lists
// its directory once and asks for no file the listing lacks (a segment
// without aborted transactions has no .txnindex, a log never cleaned no
// cleaner checkpoint): a broker opening 10,000 partitions makes each
// system call 10,000 times.
func TestOpenAsksForWhatItListed(t *testing.T) {
	st := store.NewMem()
	cfg := log.DefaultConfig()
	cfg.SegmentBytes = 200
	l, _ := logtest.Open(t, st, cfg, -1)
	for i := range 5 {
		bl := record.NewBuilder(record.NewBatchHeader(0)).Add(nil, make([]byte, 150), int64(i))
		if _, err := l.Append(bl.Build(), int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var lists, missing int
	cfg.CleanShutdown = true
	l, _, err := log.Open(askCounter{st, &lists, &missing}, logtest.Dir, cfg, -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.EndOffset() != 5 || len(l.Segments()) < 3 {
		t.Fatalf("log end %d in %d segments, want 5 in at least 3", l.EndOffset(), len(l.Segments()))
	}
	if lists != 1 || missing != 0 {
		t.Errorf("open listed its directory %d times and asked for %d missing files, want 1 and 0", lists, missing)
	}
}
