package bench

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// The floors are what the kernel alone charges, on the brokers' core, for
// the system calls a broker cannot do without, measured in the same run
// as the broker they stand beside. A child process there (this test
// binary again) serves one connection per measurement, which names the
// floor and a byte count:
//
//   - 's', the consume floor: it sends that many bytes of a cached file
//     over loopback by sendfile(2), in calls of floorChunk at explicit
//     offsets. BenchmarkBrokers measures it right after each of gregor's
//     consume phases, for the same bytes: on a 2-core VM it is 0.3-0.7
//     CPU-s/GB (loopback runs the receiving side of TCP in the sender's
//     system call), above the goal of 0.25.
//   - 'w', a single broker's write floor: it reads that many bytes off
//     the socket and appends each read to a fresh file.
//   - 'r', a three-replica write floor: as 'w' (the leader), and after
//     each append it sends the appended range by sendfile to two
//     follower connections of its own (loopback), whose readers append
//     what they read to files of their own. BenchmarkCluster measures
//     'w' after the single broker's phases and 'r' after the cluster's:
//     'r' over 'w' is what the kernel's part of replication costs
//     against the kernel's part of one broker, the premise of the 3x
//     goal. On the same VM, 200 MiB at a time, 'w' took 0.24-0.86
//     CPU-s/GB and 'r' 1.05-5.05: 3.5x 'w' at best. Most of the spread
//     is which pages the kernel hands the writes (one freed a moment ago
//     costs far less than one the hypervisor must supply again: doc.go).
//   - 'p', a spread write floor: as 'w', but in writes of a given size,
//     each to the next of a given number of fresh files (opened as part
//     of the floor, as a restarted broker opens each log on its first
//     append). BenchmarkPartitions measures it after each of gregor's
//     phases: one record per write over the wide topic's files, and
//     floorChunk per write over the narrow topic's 6. The wide floor's
//     CPU-s per GB is the wide rate of a broker core that did nothing but
//     these writes: over the narrow rate measured, the most the
//     wide/narrow ratio could be.
//
// This process sends or reads the bytes with a buffer of floorChunk.
// Every floor's header is the floor (1 byte) and the byte count (8
// bytes, big-endian), and for 'p' the files and the write size (4 bytes
// each); the child answers 1 byte when it has every byte ('w', 'r',
// 'p'), and closes the connection once it has removed what it wrote.
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

// serveSendfileFloor is the child: it writes the file it sends, prints
// its address and serves each connection's floor.
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
				if err := serveFloor(c.(*net.TCPConn), f, ln); err != nil {
					fmt.Fprintf(os.Stderr, "floor: %v\n", err)
				}
			}()
		}
	}()
	waitForParent()
	return 0
}

// serveFloor answers one connection.
func serveFloor(c *net.TCPConn, f *os.File, ln net.Listener) error {
	defer c.Close()
	var hdr [9]byte
	if _, err := io.ReadFull(c, hdr[:]); err != nil {
		return err
	}
	n := int64(binary.BigEndian.Uint64(hdr[1:]))
	switch hdr[0] {
	case 's':
		return sendRange(c, f, n, func(off int64) int64 { return off % floorFile })
	case 'w':
		return appendFrom(c, n, 1, floorChunk, nil)
	case 'r':
		return replicate(c, n, ln)
	case 'p':
		var spread [8]byte
		if _, err := io.ReadFull(c, spread[:]); err != nil {
			return err
		}
		files, size := binary.BigEndian.Uint32(spread[:4]), binary.BigEndian.Uint32(spread[4:])
		if files == 0 || size == 0 || size > floorChunk {
			return fmt.Errorf("floor p: %d files, writes of %d bytes", files, size)
		}
		return appendFrom(c, n, int(files), int(size), nil)
	}
	return fmt.Errorf("unknown floor %q", hdr[0])
}

// sendRange sends n bytes of f to c by sendfile in calls of at most
// floorChunk, reading the i-th byte sent at at(i).
func sendRange(c *net.TCPConn, f *os.File, n int64, at func(int64) int64) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	for sent := int64(0); sent < n; {
		off := at(sent)
		k := int(min(n-sent, floorChunk)) // whole chunks: 's' never runs past the file
		var serr error
		if err := rc.Write(func(fd uintptr) bool {
			for k > 0 {
				w, err := unix.Sendfile(int(fd), int(f.Fd()), &off, k)
				k, sent = k-max(w, 0), sent+int64(max(w, 0))
				switch {
				case errors.Is(err, unix.EAGAIN):
					return false // wait until the socket takes more
				case err != nil:
					serr = err
					return true
				case w == 0:
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

// appendFrom reads n bytes off c in reads of floorChunk and appends them,
// in writes of size (at most floorChunk), each to the next of files fresh
// files; appended (if not nil) is called with the file and the range of
// each write. It answers one byte once every byte is written, and
// removes the files before it returns.
func appendFrom(c net.Conn, n int64, files, size int, appended func(f *os.File, off int64, k int) error) error {
	dir, err := os.MkdirTemp("", "gregor-bench-floor-log-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	logs, ends := make([]*os.File, files), make([]int64, files)
	for i := range logs {
		if logs[i], err = os.Create(filepath.Join(dir, strconv.Itoa(i))); err != nil {
			return err
		}
		defer logs[i].Close()
	}
	buf, next := make([]byte, floorChunk), 0
	for got := int64(0); got < n; {
		k, err := io.ReadFull(c, buf[:min(int64(len(buf)), n-got)])
		for p := buf[:k]; len(p) > 0; next = (next + 1) % files {
			w := min(size, len(p))
			if _, err := logs[next].Write(p[:w]); err != nil {
				return err
			}
			if appended != nil {
				if err := appended(logs[next], ends[next], w); err != nil {
					return err
				}
			}
			ends[next] += int64(w)
			p = p[w:]
		}
		got += int64(k)
		if err != nil {
			return err
		}
	}
	_, err = c.Write([]byte{1})
	return err
}

// replicate is the 'r' floor: the leader appends what c sends and sends
// each appended range to two followers, which append it too; c gets its
// answer once both have all n bytes.
func replicate(c *net.TCPConn, n int64, ln net.Listener) error {
	var links []*net.TCPConn
	done := make(chan error, 2)
	for range 2 {
		out, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return err
		}
		defer out.Close()
		var hdr [9]byte
		hdr[0] = 'w'
		binary.BigEndian.PutUint64(hdr[1:], uint64(n))
		if _, err := out.Write(hdr[:]); err != nil {
			return err
		}
		links = append(links, out.(*net.TCPConn))
		go func() { // the follower's answer: it has every byte
			_, err := io.ReadFull(out, make([]byte, 1))
			done <- err
		}()
	}
	err := appendFrom(c, n, 1, floorChunk, func(f *os.File, off int64, k int) error {
		for _, l := range links {
			if err := sendRange(l, f, int64(k), func(i int64) int64 { return off + i }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		for _, l := range links {
			l.Close() // the followers stop waiting for the rest, and answer
		}
	}
	return errors.Join(err, <-done, <-done)
}

// measureFloor has the floor child serve one measurement of n bytes:
// floor 's' sends them to this process, 'w', 'r' and 'p' take them from
// it; args are what the floor's header holds after the byte count ('p':
// the files, the write size). The phase's broker CPU is the child's.
func measureFloor(t *target, floor byte, n int64, args ...uint32) (phaseResult, error) {
	c, err := net.Dial("tcp", t.addr)
	if err != nil {
		return phaseResult{}, err
	}
	defer c.Close()
	m := startMeter(t.pid)
	hdr := binary.BigEndian.AppendUint64([]byte{floor}, uint64(n))
	for _, a := range args {
		hdr = binary.BigEndian.AppendUint32(hdr, a)
	}
	if _, err := c.Write(hdr); err != nil {
		return phaseResult{}, err
	}
	buf := make([]byte, floorChunk)
	if floor == 's' {
		for got := int64(0); got < n; {
			k, err := c.Read(buf)
			got += int64(k)
			if err != nil {
				return phaseResult{}, fmt.Errorf("floor %c: %d of %d bytes: %w", floor, got, n, err)
			}
		}
	} else {
		for sent := int64(0); sent < n; sent += floorChunk {
			if _, err := c.Write(buf[:min(floorChunk, n-sent)]); err != nil {
				return phaseResult{}, fmt.Errorf("floor %c: %w", floor, err)
			}
		}
		if _, err := io.ReadFull(c, buf[:1]); err != nil {
			return phaseResult{}, fmt.Errorf("floor %c: no answer: %w", floor, err)
		}
	}
	res := phaseResult{bytes: n}
	m.stop(&res)
	if floor != 's' {
		// the child closes once it has removed what it wrote, which the
		// next phase must not overlap
		if _, err := io.Copy(io.Discard, c); err != nil {
			return phaseResult{}, fmt.Errorf("floor %c: %w", floor, err)
		}
	}
	return res, nil
}
