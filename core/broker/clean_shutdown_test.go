package broker

import (
	"errors"
	"testing"

	"github.com/gregor-kafka/gregor/core/store"
)

// TestCleanShutdownMark: Close leaves the mark, the next start takes it
// (its logs open as after a clean shutdown) and removes it, so a crash of
// that run restarts as after a crash.
func TestCleanShutdownMark(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	marked := func() bool {
		_, err := h.st.ReadFile(cleanShutdownFile)
		if err != nil && !errors.Is(err, store.ErrNotExist) {
			t.Fatal(err)
		}
		return err == nil
	}
	if marked() {
		t.Fatal("a running broker's storage holds the clean shutdown mark")
	}
	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	if !marked() {
		t.Fatal("Close left no clean shutdown mark")
	}
	h.open()
	if marked() {
		t.Error("the start after a clean shutdown kept the mark")
	}
	if p := h.b.topics["t"].Partitions[1]; p.log.Config().CleanShutdown {
		t.Error("the clean start's log config outlives the start")
	}
	h.st.Crash()
	h.open()
	if marked() {
		t.Error("a crash left a clean shutdown mark")
	}
}

// deferring is a storage whose batches of syncs (store.SyncDeferrer)
// commit with err, and which fails the test when the clean shutdown mark
// is written while a batch is open.
type deferring struct {
	store.Storage
	t       *testing.T
	err     error
	open    bool
	batches int
}

func (d *deferring) DeferSyncs() (func() error, bool) {
	d.open = true
	d.batches++
	return func() error { d.open = false; return d.err }, true
}

func (d *deferring) WriteFile(name string, data []byte) error {
	if name == cleanShutdownFile && d.open {
		d.t.Error("the clean shutdown mark was written before the batch of syncs committed")
	}
	return d.Storage.WriteFile(name, data)
}

// TestCloseDefersSyncs: Close takes its logs' syncs as one batch where
// the storage can, marks a clean shutdown only after the batch committed,
// and none when the commit failed.
func TestCloseDefersSyncs(t *testing.T) {
	for _, commitErr := range []error{nil, errors.New("syncfs: input/output error")} {
		h := newHarness(t, nil)
		d := &deferring{t: t, err: commitErr}
		h.wrap = func(st store.Storage) store.Storage { d.Storage = st; return d }
		h.open()
		h.createTopic("t", 2, nil)
		err := h.b.Close()
		if !errors.Is(err, commitErr) || (commitErr == nil) != (err == nil) {
			t.Fatalf("commit %v: Close returned %v", commitErr, err)
		}
		if d.batches != 1 || d.open {
			t.Fatalf("commit %v: %d batches, one still open %v", commitErr, d.batches, d.open)
		}
		_, err = h.st.ReadFile(cleanShutdownFile)
		if marked := err == nil; marked != (commitErr == nil) {
			t.Errorf("commit %v: clean shutdown marked %v", commitErr, marked)
		}
	}
}
