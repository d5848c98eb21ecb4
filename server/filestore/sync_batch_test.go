package filestore_test

import (
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// TestDeferSyncs: in a batch, File.Sync and WriteFile do not fsync (the
// fsync hook hears nothing) but keep their other effects and their
// injected faults; a second batch is declined while one is open; the
// commit is one sync of the filesystem, after which syncs wait again.
func TestDeferSyncs(t *testing.T) {
	s, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fsyncs := 0
	s.OnSync = func(time.Duration) { fsyncs++ }
	s.Arm(store.Fault{Op: store.OpSync, Match: "bad", Nth: 1, Err: store.ErrIO})
	f, err := s.Create("a.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bad, err := s.Create("bad.log")
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()

	commit, ok := s.DeferSyncs()
	if !ok {
		if runtime.GOOS == "linux" {
			t.Fatal("a batch of syncs declined on Linux")
		}
		t.Skipf("no batches of syncs on %s", runtime.GOOS)
	}
	if _, again := s.DeferSyncs(); again {
		t.Fatal("a second batch opened while one is open")
	}
	if err := f.Append([]byte("batched")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteFile("c.snapshot", []byte("state")); err != nil {
		t.Fatal(err)
	}
	if err := bad.Sync(); !errors.Is(err, store.ErrIO) {
		t.Fatalf("an armed sync fault in a batch: %v, want EIO", err)
	}
	if fsyncs != 0 {
		t.Fatalf("%d fsyncs in an open batch", fsyncs)
	}
	if err := commit(); err != nil {
		t.Fatal(err)
	}
	if fsyncs != 1 {
		t.Fatalf("the commit made %d syncs, want the filesystem's one", fsyncs)
	}
	for name, want := range map[string]string{"a.log": "batched", "c.snapshot": "state"} {
		if got, err := s.ReadFile(name); err != nil || string(got) != want {
			t.Fatalf("%s after the commit: %q, %v", name, got, err)
		}
	}
	if err := f.Append([]byte("!")); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil || fsyncs != 2 {
		t.Fatalf("a sync after the commit: %v, %d fsyncs in all", err, fsyncs)
	}
	if commit, ok := s.DeferSyncs(); !ok {
		t.Fatal("no batch after the last one committed")
	} else if err := commit(); err != nil {
		t.Fatal(err)
	}
}
