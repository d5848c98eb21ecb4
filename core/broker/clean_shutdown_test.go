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
// commit with err, which fails the test when the clean shutdown mark is
// written while a batch is open, and which counts its files' syncs in a
// batch and outside one.
type deferring struct {
	store.Storage
	t                  *testing.T
	err                error
	open               bool
	batches            int
	batched, unbatched int
}

func (d *deferring) Open(name string) (store.File, error) {
	f, err := d.Storage.Open(name)
	if err != nil {
		return nil, err
	}
	return watchedFile{f, d}, nil
}

// watchedFile counts its syncs in its deferring storage.
type watchedFile struct {
	store.File
	d *deferring
}

func (w watchedFile) Sync() error {
	if w.d.open {
		w.d.batched++
	} else {
		w.d.unbatched++
	}
	return w.File.Sync()
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
		d := &deferring{t: t}
		h.wrap = func(st store.Storage) store.Storage { d.Storage = st; return d }
		h.open()
		h.createTopic("t", 2, nil)
		d.err, d.batches = commitErr, 0
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

// TestRecoveryDefersSyncs: a start after a crash syncs the logs it
// recovered in one batch where the storage can (New), and fails if the
// batch's commit does: it serves nothing it could not make durable.
func TestRecoveryDefersSyncs(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 3, nil)
	d := &deferring{t: t}
	h.wrap = func(st store.Storage) store.Storage { d.Storage = st; return d }
	h.st.Crash()
	h.open()
	if d.batches != 1 || d.open || d.batched < 3 || d.unbatched != 0 {
		t.Errorf("recovery: %d batches (open %v), %d syncs in them, %d outside, want 1, at least 3, 0",
			d.batches, d.open, d.batched, d.unbatched)
	}
	h.st.Crash()
	d.err = errors.New("syncfs: input/output error")
	if _, err := h.tryOpen(); !errors.Is(err, d.err) {
		t.Errorf("a start whose batch of syncs failed returned %v", err)
	}
}
