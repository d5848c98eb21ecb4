package server

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// Zero-copy fetch (issue 23). On a plaintext TCP connection the engine
// asks the broker for pinned segment ranges in place of record bytes
// (broker.Request.ZeroCopy), and the writer sends each range with
// sendfile(2) between the vectored writes of the frame's other bytes:
// the batches go from the page cache to the socket without passing
// through user space. TLS connections, and every answer the live trace
// watches, copy (materialize).
//
// # Invariants
//
//   - Every pinned range handed to a connection is released exactly once:
//     by the writer after sending it (or failing to), or by close for the
//     answers still queued, or by complete when the connection is gone.
//   - A range sends from its own offset (sendfile's offset argument), never
//     the descriptor's position, so concurrent fetches of one segment are
//     independent.
//   - A range that comes up short (its segment was cut since it was
//     pinned: filestore.ErrShort) closes the connection: the client sees a
//     frame that never completes, never a malformed one.

// errSocket wraps the errors of writing to the socket.
var errSocket = errors.New("writing to the socket")

// zeroCopy says this connection's Fetch answers may carry pinned ranges:
// a plaintext TCP socket, on a system with sendfile.
func (c *conn) zeroCopy() bool {
	_, tcp := c.nc.(*net.TCPConn)
	return filestore.CanSendfile && tcp && !c.tls
}

// sendSpan writes a pinned range to the socket with sendfile (sendRange)
// and counts the bytes sent in gregor_fetch_sendfile_bytes_total.
func (c *conn) sendSpan(s wire.Span) error {
	sent, err := sendRange(c.nc, s)
	c.e.metrics.sentFile(sent)
	return err
}

// sendRange writes a pinned range to nc, a TCP socket, with sendfile,
// waiting for the socket to drain when it is full; sent is how many of
// its bytes went out. A range cut since it was pinned is an ErrShort
// error, and the socket's own errors wrap errSocket.
func sendRange(nc net.Conn, s wire.Span) (sent int, _ error) {
	r, ok := s.(*filestore.Range)
	if !ok {
		return 0, fmt.Errorf("a fetch answer's span is a %T, not a file range", s)
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return 0, fmt.Errorf("sendfile on a %T", nc)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var serr error
	err = rc.Write(func(fd uintptr) bool {
		for sent < r.Len() && serr == nil {
			n, err := r.Sendfile(int(fd), int64(sent), r.Len()-sent)
			sent += n
			switch {
			case errors.Is(err, syscall.EAGAIN):
				return false // wait until the socket can take more
			case errors.Is(err, syscall.EINTR):
			case err != nil:
				serr = err
			}
		}
		return true
	})
	switch {
	case errors.Is(serr, filestore.ErrShort):
		return sent, fmt.Errorf("a fetch answer came up short after %d of %d bytes: %w", sent, r.Len(), serr)
	case serr != nil:
		return sent, fmt.Errorf("%w: sendfile: %w", errSocket, serr)
	case err != nil:
		return sent, fmt.Errorf("%w: %w", errSocket, err)
	}
	return sent, nil
}

// materialize reads the pinned ranges of a Fetch answer into its
// partitions' RecordBatches and releases them, for a path that copies:
// the live trace describes the batches, and kmsg encodes an answer
// AppendFetchFrame declines. A range that comes up short is an error.
func materialize(f *kmsg.FetchResponse, ranged []wire.Ranged) error {
	defer broker.Release(ranged)
	for _, rg := range ranged {
		r, ok := rg.Span.(*filestore.Range)
		if !ok {
			return fmt.Errorf("a fetch answer's span is a %T, not a file range", rg.Span)
		}
		b, err := r.ReadAll()
		if err != nil {
			return err
		}
		if rg.Topic >= len(f.Topics) || rg.Partition >= len(f.Topics[rg.Topic].Partitions) {
			return fmt.Errorf("a span for partition %d of topic %d, beyond the answer", rg.Partition, rg.Topic)
		}
		f.Topics[rg.Topic].Partitions[rg.Partition].RecordBatches = b
	}
	return nil
}
