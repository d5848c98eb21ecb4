package server

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// A leader's answer to a follower's Fetch (issue 23). The engine marks
// every peer's request ZeroCopy, so the broker answers a replica fetch
// with the batches pinned in their segment files (broker.Response.Ranged)
// rather than copied out of them. The answer's frame is laid out around
// them (wire.AppendFetchBody) and handed to the peer link with its
// ranges, which the link sends with sendfile(2) between the frame's other
// bytes on a plaintext TCP connection: a replicated byte goes from the
// leader's page cache to the follower's socket without passing through
// the leader's user space. On a TLS link each range is read into a pooled
// buffer and written through the TLS stream.
//
// Invariants:
//   - Every range is released exactly once: by the link once the frame
//     is written or dropped (outFrame.done), or by answerPeerFetch when
//     there is no link or kmsg encodes the answer.
//   - A range that comes up short (its segment was cut since it was
//     pinned: filestore.ErrShort) fails the write, and the link closes
//     its connection: the follower sees a frame that never completes,
//     never a malformed one, and asks again on the new connection.

// outFrame is a frame a peer link sends: buf, and for a leader's Fetch
// answer the ranges pinned for it, which go out between buf's bytes
// (inserts, as wire.Send lays them out).
type outFrame struct {
	buf     []byte
	inserts []wire.Insert
	ranged  []wire.Ranged
}

// done releases f's pinned ranges once it is written or dropped.
func (f outFrame) done() { broker.Release(f.ranged) }

// answerPeerFetch sends peer the Fetch answer f to its request id, whose
// ranged partitions are pinned in their segments.
func (e *engine) answerPeerFetch(peer int32, id uint64, f *kmsg.FetchResponse, ranged []wire.Ranged) {
	d := e.cl
	l := d.links[peer]
	if l == nil {
		broker.Release(ranged)
		return
	}
	if out, ok := peerFetchFrame(d.id, id, f, ranged); ok {
		l.sendOut(out)
		return
	}
	// What the laid-out frame does not carry (a diverging epoch's tagged
	// fields): kmsg encodes it, the ranges read (and released) first.
	if err := materialize(f, ranged); err != nil {
		e.logf("answering node %d's fetch: %v (dropped: it asks again)", peer, err)
		return
	}
	e.answerPeer(peer, id, f)
}

// peerFetchFrame is the type 3 frame answering request id with f, its
// ranged partitions' batches left in their files; ok is false when f is
// not one wire.AppendFetchBody lays out.
func peerFetchFrame(from int32, id uint64, f *kmsg.FetchResponse, ranged []wire.Ranged) (outFrame, bool) {
	buf := appendKmsgHeader(make([]byte, 0, 256), frameResp, from, id, false, f.Key(), f.GetVersion())
	buf, inserts, total, ok := wire.AppendFetchBody(buf, nil, f, ranged)
	if !ok {
		return outFrame{}, false
	}
	binary.BigEndian.PutUint32(buf, uint32(len(buf)-4+total))
	return outFrame{buf: buf, inserts: inserts, ranged: ranged}, true
}

// writeOut writes f to nc through w, nc's buffered writer: each range by
// sendfile on a TCP socket (w flushed before it), read into w otherwise;
// then f is done. pieces is reused for the runs between ranges.
func writeOut(nc net.Conn, w *bufio.Writer, f outFrame, pieces *[][]byte, m *metrics) error {
	defer f.done()
	if len(f.inserts) == 0 {
		_, err := w.Write(f.buf)
		return err
	}
	_, tcp := nc.(*net.TCPConn)
	return wire.Send(f.buf, f.inserts, *pieces, func(ps [][]byte) error {
		*pieces = ps
		for _, p := range ps {
			if _, err := w.Write(p); err != nil {
				return err
			}
		}
		return nil
	}, func(s wire.Span) error {
		if !tcp || !filestore.CanSendfile {
			return copyRange(w, s)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		sent, err := sendRange(nc, s)
		m.sentFile(sent)
		return err
	})
}

// copyRange reads a pinned range into a pooled buffer and writes it to w.
func copyRange(w io.Writer, s wire.Span) error {
	r, ok := s.(*filestore.Range)
	if !ok {
		return fmt.Errorf("a fetch answer's span is a %T, not a file range", s)
	}
	var b []byte
	switch {
	case r.Len() == 0:
		return nil
	case r.Len() <= maxPooledFrame:
		p := getFrame(r.Len())
		defer putFrame(p)
		b = *p
	default:
		b = make([]byte, r.Len())
	}
	if err := r.ReadInto(b); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}
