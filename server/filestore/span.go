package filestore

import (
	"errors"
	"fmt"

	"github.com/gregor-kafka/gregor/core/store"
)

// ErrShort is a Span's send or read after a Truncate cut into its range:
// the bytes it was pinned for are gone, or were replaced by later appends.
var ErrShort = errors.New("filestore: the pinned range was truncated")

// Range is a pinned range of a File (a store.Span): the fetch path's
// zero-copy send hook. The native server sends it with Sendfile on
// plaintext sockets and reads it with ReadAll where it must copy.
//
// # Invariants
//
//   - While a Range is pinned its File's descriptor stays open: a pin is
//     a use (descriptors.go), which neither the descriptor bound nor
//     Close closes under it; the last Release does.
//   - Every send names its file offset (sendfile's offset argument), never
//     the descriptor's shared position, so concurrent sends of one segment
//     do not disturb each other or the appends.
//   - A Truncate below the range's end marks it cut, under the File's
//     lock that each send holds for its system call: no byte of a cut
//     range is sent after the cut, and the sender learns it (ErrShort).
type Range struct {
	f   *File
	off int64
	n   int
	cut bool // guarded by f.mu
}

var _ store.Span = (*Range)(nil)

// Span pins [off, off+n) of the file.
func (f *File) Span(off int64, n int) (store.Span, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if off < 0 || n < 0 || off+int64(n) > f.size {
		return nil, fmt.Errorf("filestore: span %d+%d of %s past its size %d", off, n, f.name, f.size)
	}
	if _, err := f.acquire(); err != nil { // released by Release
		return nil, err
	}
	r := &Range{f: f, off: off, n: n}
	if f.pins == nil {
		f.pins = map[*Range]struct{}{}
	}
	f.pins[r] = struct{}{}
	f.pinned.Add(1)
	return r, nil
}

// Len is the range's length.
func (r *Range) Len() int { return r.n }

// Release unpins the range; the last Release of a closed file closes its
// descriptor.
func (r *Range) Release() {
	f := r.f
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.pins[r]; !ok {
		return
	}
	delete(f.pins, r)
	f.pinned.Add(-1)
	f.release()
}

// ReadAll reads the whole range with pread(2), for a connection that
// cannot take it by sendfile (the live trace's copy, an answer encoded
// by kmsg).
func (r *Range) ReadAll() ([]byte, error) {
	b := make([]byte, r.n)
	if err := r.ReadInto(b); err != nil {
		return nil, err
	}
	return b, nil
}

// ReadInto reads the whole range into p, which is Len bytes long, with
// pread(2): a leader's answer to a follower's fetch is read straight into
// the frame it travels in (server/peer_fetch.go).
func (r *Range) ReadInto(p []byte) error {
	if len(p) != r.n {
		return fmt.Errorf("filestore: read of a range of %d into %d bytes", r.n, len(p))
	}
	r.f.mu.RLock()
	defer r.f.mu.RUnlock()
	if r.cut {
		return ErrShort
	}
	if _, err := r.f.f.ReadAt(p, r.off); err != nil {
		return mapErr(err)
	}
	return nil
}

// cutPins marks the ranges that reach past n as cut; f.mu is held.
func (f *File) cutPins(n int64) {
	for r := range f.pins {
		if r.off+int64(r.n) > n {
			r.cut = true
		}
	}
}
