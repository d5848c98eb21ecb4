//go:build unix

package filestore

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// CanSendfile says Range.Sendfile works on this system.
const CanSendfile = true

// Sendfile sends up to n bytes of the range from its offset at into the
// socket descriptor out with sendfile(2), and returns how many it sent.
// It is one system call: out is non-blocking, so a full socket buffer
// returns unix.EAGAIN, and the caller waits for the socket and sends the
// rest. A cut range returns ErrShort before sending anything.
func (r *Range) Sendfile(out int, at int64, n int) (int, error) {
	if at < 0 || n < 0 || at+int64(n) > int64(r.n) {
		return 0, fmt.Errorf("filestore: send of %d+%d outside a range of %d", at, n, r.n)
	}
	r.f.mu.RLock()
	defer r.f.mu.RUnlock()
	if r.cut {
		return 0, ErrShort
	}
	off := r.off + at
	sent, err := unix.Sendfile(out, int(r.f.f.Fd()), &off, n)
	if sent == 0 && err == nil && n > 0 {
		return 0, ErrShort // the file ends before the range does
	}
	return max(sent, 0), err
}
