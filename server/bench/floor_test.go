package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// The consume floor is what the kernel alone charges the sender to move a
// consume phase's bytes over loopback by sendfile(2): a child process on
// the brokers' core sends that many bytes of a cached file in calls of
// floorChunk at explicit offsets, and this process reads them with a
// buffer of the same size. BenchmarkBrokers measures it right after each
// of gregor's consume phases, for the same byte count, and reports
// gregor's CPU per GB consumed over it: on a 2-core VM, the floor
// itself is 0.2-0.4 CPU-s/GB (loopback runs the receiving side of TCP in
// the sender's system call), around the goal of 0.25.
const (
	envFloorChild = "GREGOR_BENCH_FLOOR_CHILD"
	// floorChunk is one sendfile call: gregor sends each partition's part
	// of a Fetch answer as one range, and kgo asks for at most 1 MiB
	// per partition (FetchMaxPartitionBytes).
	floorChunk = 1 << 20
	// floorFile is the child's file, sent again from its start as often
	// as the byte count asks: small enough to stay in the page cache.
	floorFile = 64 << 20
)

// serveSendfileFloor is the child: it writes its file, prints its
// address and, for each connection, reads a byte count (8 bytes,
// big-endian) and sends that many bytes of the file.
func serveSendfileFloor() int {
	f, err := os.CreateTemp("", "gregor-bench-floor-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "floor: %v\n", err)
		return 1
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(make([]byte, floorFile)); err != nil {
		fmt.Fprintf(os.Stderr, "floor: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintf(os.Stderr, "floor: %v\n", err)
		return 1
	}
	fmt.Printf("addr=%s\n", ln.Addr())
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				if err := sendFloor(c.(*net.TCPConn), f); err != nil {
					fmt.Fprintf(os.Stderr, "floor: %v\n", err)
				}
			}()
		}
	}()
	waitForParent()
	return 0
}

// sendFloor answers one connection.
func sendFloor(c *net.TCPConn, f *os.File) error {
	defer c.Close()
	var hdr [8]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return err
	}
	left := int64(binary.BigEndian.Uint64(hdr[:]))
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var off int64
	for left > 0 {
		if off == floorFile {
			off = 0
		}
		n := int(min(left, floorChunk, floorFile-off))
		var serr error
		if err := rc.Write(func(fd uintptr) bool {
			for n > 0 {
				k, err := unix.Sendfile(int(fd), int(f.Fd()), &off, n)
				n, left = n-max(k, 0), left-int64(max(k, 0))
				switch {
				case errors.Is(err, unix.EAGAIN):
					return false // wait until the socket takes more
				case err != nil:
					serr = err
					return true
				case k == 0:
					serr = io.ErrUnexpectedEOF
					return true
				}
			}
			return true
		}); err != nil {
			return err
		}
		if serr != nil {
			return serr
		}
	}
	return nil
}

// sendfileFloor has the floor child send n bytes and reads them: the
// phase's broker CPU is the child's.
func sendfileFloor(t *target, n int64) (phaseResult, error) {
	c, err := net.Dial("tcp", t.addr)
	if err != nil {
		return phaseResult{}, err
	}
	defer c.Close()
	m := startMeter(t.pid)
	var hdr [8]byte
	binary.BigEndian.PutUint64(hdr[:], uint64(n))
	if _, err := c.Write(hdr[:]); err != nil {
		return phaseResult{}, err
	}
	buf := make([]byte, floorChunk)
	var got int64
	for got < n {
		k, err := c.Read(buf)
		got += int64(k)
		if err != nil {
			return phaseResult{}, fmt.Errorf("floor: %d of %d bytes: %w", got, n, err)
		}
	}
	res := phaseResult{bytes: got}
	m.stop(&res)
	return res, nil
}
