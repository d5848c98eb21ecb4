//go:build unix

package filestore

import (
	"os"

	"golang.org/x/sys/unix"
)

// openFile opens a regular file as os.OpenFile does, in three system
// calls (open, fcntl, and the caller's fstat) where os.OpenFile makes
// seven: it asks the runtime's poller to take the descriptor, which
// epoll refuses for a regular file (EPERM), and sets and resets
// O_NONBLOCK around that. A broker opening 10,000 partitions opens three
// files each, on a VM where a system call costs microseconds. The file
// is blocking, as os.OpenFile's regular files end up anyway.
func openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := unix.Open(name, flag|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == unix.EINTR {
			continue // as os.OpenFile does: a slow filesystem's open can be interrupted
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: name, Err: err}
		}
		return os.NewFile(uintptr(fd), name), nil
	}
}
