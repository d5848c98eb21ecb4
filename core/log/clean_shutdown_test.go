package log_test

import (
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
