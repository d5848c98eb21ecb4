package filestore_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/store/storetest"
	"github.com/gregor-kafka/gregor/server/filestore"
)

func newFS(t *testing.T) store.Storage {
	s, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) { storetest.Run(t, newFS) }

func TestLogSuite(t *testing.T) { logtest.Run(t, newFS) }

// TestWriteFileOverLeftoverTemp: a process killed inside WriteFile leaves
// its temp file (NAME.tmpN) behind, and the next run counts N from 1
// again. WriteFile must replace such a leftover, not fail on it (a
// metadata quorum that cannot write its hard state halts).
func TestWriteFileOverLeftoverTemp(t *testing.T) {
	dir := t.TempDir()
	s, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 5000; n++ { // every name this process's counter may reach here
		if err := os.WriteFile(filepath.Join(dir, "state.tmp"+strconv.Itoa(n)), []byte("torn"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.WriteFile("state", []byte("whole")); err != nil {
		t.Fatalf("WriteFile over a leftover temp file: %v", err)
	}
	if b, err := s.ReadFile("state"); err != nil || string(b) != "whole" {
		t.Fatalf("read back %q, %v", b, err)
	}
}
