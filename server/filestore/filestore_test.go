package filestore_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/store/storetest"
	"github.com/gregor-kafka/gregor/server/filestore"
)

func newFS(t *testing.T) store.Storage {
	s, _ := freshFS(t)
	return s
}

// freshFS is an FS in a fresh directory, which it returns too.
func freshFS(t *testing.T) (*filestore.FS, string) {
	dir := t.TempDir()
	s, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}

func TestConformance(t *testing.T) { storetest.Run(t, newFS) }

// newBoundedFS is an FS that holds at most two descriptors open, so that
// the suites below run with descriptors closed and opened again under
// nearly every operation.
func newBoundedFS(t *testing.T) store.Storage {
	s, _ := boundedFS(t, 2)
	return s
}

// boundedFS is freshFS holding at most max descriptors open.
func boundedFS(t *testing.T, max int) (*filestore.FS, string) {
	s, dir := freshFS(t)
	s.SetMaxOpen(max)
	return s, dir
}

func TestConformanceBounded(t *testing.T) { storetest.Run(t, newBoundedFS) }

func TestLogSuiteBounded(t *testing.T) { logtest.Run(t, newBoundedFS) }

// TestDescriptorBound: ten files under a bound of three hold at most three
// descriptors; each file's appends, truncation and sync still land on it,
// at its end, after its descriptor was closed and opened again; a file
// closed while its descriptor was is closed once, and not twice.
func TestDescriptorBound(t *testing.T) {
	s, dir := boundedFS(t, 3)
	var files []store.File
	for i := range 10 {
		f, err := s.Create("f" + strconv.Itoa(i))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for round := range 3 {
		for i, f := range files {
			if err := f.Append([]byte{byte('a' + round), byte('0' + i)}); err != nil {
				t.Fatalf("round %d: append to f%d: %v", round, i, err)
			}
			if open, _ := s.OpenDescriptors(); open > 3 {
				t.Fatalf("%d descriptors open under a bound of 3", open)
			}
		}
	}
	if err := files[4].Truncate(4); err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		if err := f.Sync(); err != nil {
			t.Fatalf("sync f%d: %v", i, err)
		}
		want := fmt.Sprintf("a%db%dc%d", i, i, i)
		if i == 4 {
			want = want[:4]
		}
		buf := make([]byte, len(want))
		if _, err := f.ReadAt(buf, 0); err != nil || string(buf) != want || f.Size() != int64(len(want)) {
			t.Errorf("f%d reads %q (size %d), %v; want %q", i, buf, f.Size(), err, want)
		}
		if onDisk, _ := os.ReadFile(filepath.Join(dir, "f"+strconv.Itoa(i))); string(onDisk) != want {
			t.Errorf("f%d on disk: %q, want %q", i, onDisk, want)
		}
	}
	if _, reopened := s.OpenDescriptors(); reopened == 0 {
		t.Error("no descriptor was opened again: the bound closed none")
	}
	for i, f := range files {
		if err := f.Close(); err != nil {
			t.Errorf("close f%d: %v", i, err)
		}
	}
	if open, _ := s.OpenDescriptors(); open != 0 {
		t.Errorf("%d descriptors open after every file closed", open)
	}
	if err := files[0].Close(); !errors.Is(err, store.ErrClosed) {
		t.Errorf("second close: %v, want ErrClosed", err)
	}
	if err := files[0].Append([]byte("x")); !errors.Is(err, store.ErrClosed) {
		t.Errorf("append after close: %v, want ErrClosed", err)
	}
}

func TestLogSuite(t *testing.T) { logtest.Run(t, newFS) }

// TestWriteFileOverLeftoverTemp: a process killed inside WriteFile leaves
// its temp file (NAME.tmpN) behind, and the next run counts N from 1
// again. WriteFile must replace such a leftover, not fail on it (a
// metadata quorum that cannot write its hard state halts).
func TestWriteFileOverLeftoverTemp(t *testing.T) {
	s, dir := freshFS(t)
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

// TestFreshLogSyncsAtItsFirstFlush: opening a new log makes its empty
// files without an fsync (creating 10,000 partitions was 60,000 of them);
// its first flush syncs them with the bytes appended, and reopening a log
// that holds bytes after an unclean stop still syncs it.
func TestFreshLogSyncsAtItsFirstFlush(t *testing.T) {
	s, _ := freshFS(t)
	var syncs int
	s.OnSync = func(time.Duration) { syncs++ }
	l, _, err := log.Open(s, "p", log.DefaultConfig(), -1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if syncs != 0 {
		t.Errorf("opening a fresh log took %d fsyncs, want none", syncs)
	}
	if _, err := l.Append(logtest.Batch(3, 0), 0); err != nil {
		t.Fatal(err)
	}
	if err := l.Flush(0); err != nil {
		t.Fatal(err)
	}
	if syncs == 0 {
		t.Error("the first flush of a fresh log synced nothing")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	syncs = 0
	l, _, err = log.Open(s, "p", log.DefaultConfig(), -1, 0) // CleanShutdown unset: recovery
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if syncs == 0 {
		t.Error("reopening a log of 3 records after an unclean stop synced nothing")
	}
	if got := l.EndOffset(); got != 3 {
		t.Errorf("reopened log ends at %d, want 3", got)
	}
}

// TestAppendsOpenOnlyTheLog: 40 logs, whose 120 segment and index files
// are more than twice a bound of 50 descriptors, take appends in turn,
// each append adding index entries: once the first round has opened the
// .log files that creating the others closed, no append opens a file
// again, since an append writes only the .log (the indexes wait for a
// sync) and the 40 .log files fit the bound. The indexes are on disk
// after a flush.
func TestAppendsOpenOnlyTheLog(t *testing.T) {
	s, dir := boundedFS(t, 50)
	cfg := log.DefaultConfig()
	cfg.IndexIntervalBytes = 1
	var logs []*log.Log
	for i := range 40 {
		l, _, err := log.Open(s, "p-"+strconv.Itoa(i), cfg, -1, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = l.Close() })
		logs = append(logs, l)
	}
	var before int64
	for round := range 5 {
		if round == 1 { // the first reopened what creating the files closed
			_, before = s.OpenDescriptors()
		}
		for i, l := range logs {
			if _, err := l.Append(logtest.Batch(2, int64(round)), 0); err != nil {
				t.Fatalf("round %d, log %d: %v", round, i, err)
			}
		}
	}
	if _, after := s.OpenDescriptors(); after != before {
		t.Errorf("appends to 40 logs in turn opened %d files again under a bound of 50", after-before)
	}
	for i, l := range logs {
		if err := l.Flush(0); err != nil {
			t.Fatal(err)
		}
		idx, err := os.ReadFile(filepath.Join(dir, "p-"+strconv.Itoa(i), "00000000000000000000.index"))
		if err != nil || len(idx) != 4*log.OffsetEntrySize {
			t.Errorf("log %d: .index after a flush is %d bytes, %v; want 4 entries", i, len(idx), err)
		}
	}
}
