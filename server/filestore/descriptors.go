package filestore

import (
	"container/list"
	"fmt"
	"os"
	"sync"
)

// descriptors bounds the descriptors an FS's files hold open. Kafka keeps
// every segment's log and index files open and asks the operator for a
// large ulimit; a broker with 10,000 partitions holds three files each,
// more than the 20,000 this machine allows. So an FS holds at most max
// open: past that, the least recently used file's descriptor is closed,
// and its next read, append, sync or truncate opens the file again. The
// log appends to a segment's .log only and writes its index files at the
// next sync (core/log/segment.go), so appends to every partition in turn
// keep to one descriptor each.
//
// Invariants:
//   - A file in use (an operation running on it, or a pinned Range,
//     span.go) is never closed under it, by the bound or by Close (the
//     last release closes a closed file's descriptor); the bound may be
//     passed while every open file is in use, and is restored as they
//     are released.
//   - Closing a descriptor loses nothing: what was appended is in the
//     page cache, and fsync on a new descriptor flushes the file (fsync is
//     of the inode); a file reopens with O_APPEND, so appends still go to
//     its end.
//   - max 0 is no bound.
type descriptors struct {
	mu       sync.Mutex
	max      int
	lru      list.List // the files with an open descriptor, most recent first
	reopened int64     // descriptors opened again after the bound closed them
}

// SetMaxOpen bounds the descriptors the storage holds open (0: none); the
// server sets it below the process's open-files limit.
func (s *FS) SetMaxOpen(n int) {
	s.fds.mu.Lock()
	defer s.fds.mu.Unlock()
	s.fds.max = n
	s.fds.trim()
}

// OpenDescriptors is how many descriptors the storage's files hold now,
// and how many times a file was opened again after the bound closed it.
func (s *FS) OpenDescriptors() (open int, reopened int64) {
	s.fds.mu.Lock()
	defer s.fds.mu.Unlock()
	return s.fds.lru.Len(), s.fds.reopened
}

// adopt counts a newly opened file's descriptor.
func (d *descriptors) adopt(f *File) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f.elem = d.lru.PushFront(f)
	f.busy++ // what is just opened stays open; an older file's descriptor goes
	d.trim()
	f.busy--
}

// acquire returns f's descriptor, opening it again if the bound closed it,
// and keeps it open until release.
func (f *File) acquire() (*os.File, error) {
	d := f.fds
	d.mu.Lock()
	defer d.mu.Unlock()
	if f.closed {
		return nil, mapErr(fmt.Errorf("%s: %w", f.path, os.ErrClosed))
	}
	if f.f == nil {
		fd, err := openFile(f.path, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			return nil, mapErr(err)
		}
		f.f = fd
		f.elem = d.lru.PushFront(f)
		d.reopened++
	} else {
		d.lru.MoveToFront(f.elem)
	}
	f.busy++
	d.trim()
	return f.f, nil
}

// release ends a use of f's descriptor begun by acquire.
func (f *File) release() {
	d := f.fds
	d.mu.Lock()
	defer d.mu.Unlock()
	f.busy--
	if f.closed && f.busy == 0 && f.f != nil {
		_ = d.drop(f)
	}
	d.trim()
}

// trim closes the least recently used descriptors not in use until at
// most max are open. Called with mu held.
func (d *descriptors) trim() {
	for e := d.lru.Back(); e != nil && d.max > 0 && d.lru.Len() > d.max; {
		prev := e.Prev()
		if g := e.Value.(*File); g.busy == 0 {
			d.drop(g)
		}
		e = prev
	}
}

// drop closes g's descriptor. Called with mu held.
func (d *descriptors) drop(g *File) error {
	d.lru.Remove(g.elem)
	err := g.f.Close()
	g.f, g.elem = nil, nil
	return err
}

// close closes f for good.
func (f *File) close() error {
	d := f.fds
	d.mu.Lock()
	defer d.mu.Unlock()
	if f.closed {
		return mapErr(fmt.Errorf("%s: %w", f.path, os.ErrClosed))
	}
	f.closed = true
	if f.f == nil || f.busy > 0 { // the last release closes it
		return nil
	}
	return mapErr(d.drop(f))
}
