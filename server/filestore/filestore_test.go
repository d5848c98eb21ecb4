package filestore_test

import (
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

func TestOSFile(t *testing.T) {
	s := newFS(t)
	f, err := s.Create("x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.(*filestore.File).OSFile() == nil {
		t.Fatal("OSFile is nil")
	}
}

func TestLogSuite(t *testing.T) { logtest.Run(t, newFS) }
