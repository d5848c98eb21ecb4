package filestore

import (
	"container/list"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gregor-kafka/gregor/core/store"
)

// FS is a store.Storage rooted at a directory.
type FS struct {
	root   string
	faults *faultSet // armed by tests only (faults.go)
	// OnSync, when set before files are opened, is told how long each
	// successful fsync of a file took (the broker's fsync latency metric).
	OnSync func(time.Duration)
	pinned atomic.Int64 // Ranges of its files pinned and not released (span.go)
	fds    *descriptors // shared by its files (descriptors.go)
	batch  *syncBatch   // shared by its files (sync_batch.go)
}

var _ store.Storage = (*FS)(nil)

// IndexesAtSync tells the log to write index entries when it syncs a
// segment: appending to 10,000 partitions in turn then keeps to their
// 10,000 .log descriptors, not three per partition under the bound.
func (s *FS) IndexesAtSync() {}

// tmpSeq makes WriteFile's temporary names unique within the process
// (not across runs: a leftover of a killed run is overwritten).
var tmpSeq atomic.Uint64

// New returns a storage rooted at root, creating the directory if needed.
func New(root string) (*FS, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, mapErr(err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	return &FS{root: abs, faults: &faultSet{}, fds: &descriptors{}, batch: &syncBatch{}}, nil
}

// Pinned is the number of Ranges of the storage's files held now: 0 once
// every fetch answer that pinned one was sent or dropped.
func (s *FS) Pinned() int64 { return s.pinned.Load() }

// Root is the directory the storage lives in.
func (s *FS) Root() string { return s.root }

func rel(name string) string { return path.Clean("/" + name)[1:] }

func (s *FS) path(name string) string {
	rel := rel(name)
	if rel == "" {
		return s.root
	}
	return filepath.Join(s.root, filepath.FromSlash(rel))
}

// mapErr wraps OS errors so that errors.Is matches the store sentinels
// while keeping the original *os.PathError in the chain.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %w", store.ErrNotExist, err)
	case errors.Is(err, fs.ErrExist):
		return fmt.Errorf("%w: %w", store.ErrExist, err)
	case errors.Is(err, fs.ErrClosed):
		return fmt.Errorf("%w: %w", store.ErrClosed, err)
	}
	return err
}

func (s *FS) openFile(name string, flag int) (*File, error) {
	p := s.path(name)
	f, err := openFile(p, flag|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, mapErr(err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, mapErr(err)
	}
	if st.IsDir() {
		_ = f.Close()
		return nil, fmt.Errorf("open %s: is a directory", p)
	}
	file := &File{f: f, path: p, size: st.Size(), synced: st.Size(), dir: filepath.Dir(p), created: flag&os.O_CREATE != 0,
		name: rel(name), faults: s.faults, onSync: s.OnSync, pinned: &s.pinned, fds: s.fds, batch: s.batch}
	s.fds.adopt(file)
	return file, nil
}

// Open opens an existing file for reading and appending.
func (s *FS) Open(name string) (store.File, error) { return s.openFile(name, 0) }

// Create creates an empty file, failing with store.ErrExist if it exists.
func (s *FS) Create(name string) (store.File, error) {
	return s.openFile(name, os.O_CREATE|os.O_EXCL)
}

// ReadFile reads a whole file as it is when opened: opened as every file
// of the storage is (openFile), then one read of the size fstat gives, as
// the broker reads a snapshot of each partition's producers at start.
// The files read whole are ones WriteFile replaces, never appended to.
func (s *FS) ReadFile(name string) ([]byte, error) {
	f, err := openFile(s.path(name), os.O_RDONLY, 0)
	if err != nil {
		return nil, mapErr(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, mapErr(err)
	}
	b := make([]byte, st.Size())
	n, err := f.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, mapErr(err)
	}
	return b[:n], nil
}

// WriteFile atomically replaces a file: temp file, fsync, rename, fsync dir.
func (s *FS) WriteFile(name string, data []byte) (err error) {
	p := s.path(name)
	tmp := p + ".tmp" + strconv.FormatUint(tmpSeq.Add(1), 10)
	// O_TRUNC, not O_EXCL: a process killed between creating its temp
	// file and renaming it leaves the file behind, and the next run's
	// counter starts again at the same name. No live writer shares it.
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return mapErr(err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err == nil && !s.batch.deferring() {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return mapErr(err)
	}
	if err = os.Rename(tmp, p); err != nil {
		return mapErr(err)
	}
	if s.batch.deferring() {
		return nil
	}
	return syncDir(filepath.Dir(p))
}

// Remove deletes one file (or an empty directory).
func (s *FS) Remove(name string) error { return mapErr(os.Remove(s.path(name))) }

// Rename moves a file, replacing any file at newName, and makes the move
// durable by syncing the directories involved.
func (s *FS) Rename(oldName, newName string) error {
	op, np := s.path(oldName), s.path(newName)
	if err := s.faults.check(store.OpRename, rel(oldName), op); err != nil {
		return err
	}
	if err := os.Rename(op, np); err != nil {
		return mapErr(err)
	}
	if err := syncDir(filepath.Dir(np)); err != nil {
		return err
	}
	if filepath.Dir(op) != filepath.Dir(np) {
		return syncDir(filepath.Dir(op))
	}
	return nil
}

// List returns the sorted entry names directly under dir. The directory
// opens as a file does (openFile): os.ReadDir's open has the runtime's
// poller try the descriptor, three more system calls, and a start lists
// every partition's directory.
func (s *FS) List(dir string) ([]string, error) {
	d, err := openFile(s.path(dir), os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, mapErr(err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, mapErr(err)
	}
	sort.Strings(names)
	return names, nil
}

// MkdirAll creates a directory and its parents.
func (s *FS) MkdirAll(dir string) error { return mapErr(os.MkdirAll(s.path(dir), 0o755)) }

// RemoveAll deletes dir and everything under it; a missing dir is fine.
func (s *FS) RemoveAll(dir string) error {
	p := s.path(dir)
	if p == s.root {
		return fmt.Errorf("filestore: refusing to remove the storage root %s", p)
	}
	return mapErr(os.RemoveAll(p))
}

// syncDir fsyncs a directory so entries created or renamed in it survive a
// crash. Windows cannot fsync directories; there it is a no-op.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return mapErr(err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return mapErr(err)
}

// File is an open file of an FS. Its descriptor may be closed while it
// is not in use and opened again on its next use (descriptors.go); a
// pinned Range is a use, so a Range's descriptor stays open until its
// Release.
type File struct {
	f       *os.File // nil while the bound has it closed
	path    string
	size    int64
	synced  int64 // the size at the last good fsync (for injected faults)
	dir     string
	created bool // the directory entry still needs an fsync
	name    string
	faults  *faultSet
	onSync  func(time.Duration)

	fds    *descriptors
	batch  *syncBatch
	elem   *list.Element // in fds.lru while f is open (fds.mu)
	busy   int           // uses running and Ranges pinned (fds.mu)
	closed bool          // Close was called (fds.mu); the descriptor closes with the last use

	// mu guards pins and the cut marks of the pinned Ranges (span.go):
	// Truncate holds it to write, each sendfile to read. The engine's own
	// reads and appends take no lock: they never race with a Truncate,
	// which the engine does too. Lock order: mu, then fds.mu.
	mu     sync.RWMutex
	pins   map[*Range]struct{}
	pinned *atomic.Int64 // the FS's count
}

var (
	_ store.File   = (*File)(nil)
	_ store.Ranger = (*File)(nil)
)

// ReadAt reads with pread(2).
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	fd, err := f.acquire()
	if err != nil {
		return 0, err
	}
	defer f.release()
	n, err := fd.ReadAt(p, off)
	return n, mapErr(err)
}

// Append writes p at the end of the file.
func (f *File) Append(p []byte) error {
	if err := f.faults.check(store.OpWrite, f.name, f.path); err != nil {
		return err
	}
	fd, err := f.acquire()
	if err != nil {
		return err
	}
	defer f.release()
	n, err := fd.Write(p)
	f.size += int64(n)
	return mapErr(err)
}

// Size is the tracked length of the file.
func (f *File) Size() int64 { return f.size }

// Truncate cuts the file to n bytes.
func (f *File) Truncate(n int64) error {
	if n < 0 || n > f.size {
		return fmt.Errorf("truncate %s to %d: size is %d", f.path, n, f.size)
	}
	return f.cut(n)
}

// cut truncates the file to n bytes, marking the pinned ranges past n as
// cut while no send is in a system call (span.go).
func (f *File) cut(n int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	fd, err := f.acquire()
	if err != nil {
		return err
	}
	defer f.release()
	f.cutPins(n)
	if err := fd.Truncate(n); err != nil {
		return mapErr(err)
	}
	f.size, f.synced = n, min(f.synced, n)
	return nil
}

// Sync fsyncs the file and, the first time after Create, its directory.
func (f *File) Sync() error {
	if err := f.faults.check(store.OpSync, f.name, f.path); err != nil {
		_ = f.cut(f.synced) // the pages that failed are gone
		return err
	}
	if f.batch.deferring() { // the batch's commit syncs it (sync_batch.go)
		f.synced, f.created = f.size, false
		return nil
	}
	fd, err := f.acquire()
	if err != nil {
		return err
	}
	defer f.release()
	start := time.Now()
	if err := fd.Sync(); err != nil {
		return mapErr(err)
	}
	if f.onSync != nil {
		f.onSync(time.Since(start))
	}
	f.synced = f.size
	if f.created {
		if err := syncDir(f.dir); err != nil {
			return err
		}
		f.created = false
	}
	return nil
}

// Close closes the file: every further call fails with store.ErrClosed.
// While Ranges of it are pinned the descriptor stays open for their
// sends, and the last Release closes it, so a descriptor bound or
// retention may drop the file without waiting for a slow consumer.
func (f *File) Close() error { return f.close() }
