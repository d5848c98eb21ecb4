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
	fd, err := retryEINTR(func() (int, error) { return unix.Open(name, flag|unix.O_CLOEXEC, uint32(perm.Perm())) })
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// readFile reads a whole regular file in four system calls (open, fstat,
// pread, close) where os.ReadFile over os.Open makes eight, and without
// growing its buffer from 512 bytes: a restart reads one producer
// snapshot per partition. A read that fills the buffer goes on until one
// comes up short, at the end of a file that grew since the fstat.
func readFile(name string) ([]byte, error) {
	fd, err := retryEINTR(func() (int, error) { return unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: name, Err: err}
	}
	buf := make([]byte, st.Size+1)
	n := 0
	for {
		m, err := retryEINTR(func() (int, error) { return unix.Pread(fd, buf[n:], int64(n)) })
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: name, Err: err}
		}
		n += m
		if n < len(buf) {
			return buf[:n], nil
		}
		buf = append(buf, make([]byte, len(buf))...)
	}
}

// retryEINTR calls fn again while a signal interrupts it, as the os
// package does for a slow filesystem's system calls.
func retryEINTR(fn func() (int, error)) (int, error) {
	for {
		n, err := fn()
		if err != unix.EINTR {
			return n, err
		}
	}
}
