package filestore_test

import (
	"errors"
	"syscall"
	"testing"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// TestFaultsFromEnv: GREGOR_TEST_FAULTS arms faults on the real file
// store; a failed fsync reports EIO and drops what it could not write, a
// failed append ENOSPC; the next fsync succeeds again.
func TestFaultsFromEnv(t *testing.T) {
	t.Setenv(filestore.FaultsEnv, "sync d/ nth=2; write e/ err=ENOSPC")
	s, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	armed, err := s.ArmFromEnv()
	if err != nil || len(armed) != 2 {
		t.Fatalf("armed %v, %v", armed, err)
	}
	for _, d := range []string{"d", "e"} {
		if err := s.MkdirAll(d); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := s.Create("d/x.log")
	defer f.Close()
	_ = f.Append([]byte("kept"))
	if err := f.Sync(); err != nil {
		t.Fatalf("first fsync: %v", err)
	}
	_ = f.Append([]byte("lost"))
	if err := f.Sync(); !errors.Is(err, syscall.EIO) || !errors.Is(err, store.ErrIO) {
		t.Fatalf("second fsync: %v, want EIO", err)
	}
	if got, _ := s.ReadFile("d/x.log"); string(got) != "kept" {
		t.Fatalf("after the failed fsync the file holds %q", got)
	}
	if err := f.Sync(); err != nil {
		t.Fatalf("third fsync: %v", err)
	}
	g, _ := s.Create("e/y.log")
	defer g.Close()
	if err := g.Append([]byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append: %v, want ENOSPC", err)
	}
	t.Setenv(filestore.FaultsEnv, "fsync d/")
	if _, err := s.ArmFromEnv(); err == nil {
		t.Fatal("a bad fault spec was accepted")
	}
}
