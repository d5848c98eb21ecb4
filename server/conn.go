package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/wire"
)

// maxKeptBuffer is the largest write buffer a connection keeps between
// responses; growing a fresh one for each response costs more CPU than the
// encoding (measured by make bench).
const maxKeptBuffer = 64 << 20

// tlsHandshake is the first byte of a TLS record carrying a handshake
// (a ClientHello), followed by major version 3: read as a Kafka frame
// size it is 369 MB or more.
const tlsHandshake = 0x16

// slot is one place in a connection's response order. The engine knows
// the request by seq, a number the connection gives each request it
// reads: clients may reuse correlation ids (Kafka does not forbid it),
// and the answer must still go to its own request's place.
type slot struct {
	seq  int32 // the correlation id the engine sees
	corr int32 // the client's correlation id, written in the answer
	size int64 // request bytes held (inflight)
	resp kmsg.Response
	// ranged are the answer's pinned segment ranges (conn_send.go): the
	// slot's holder releases them.
	ranged []wire.Ranged
	raw    []byte // a pre-encoded frame, for answers kmsg cannot encode
	ready  bool
	// frame is a produce request's pooled buffer (frame_pool.go), put
	// back once the broker answered it.
	frame *[]byte
}

type conn struct {
	id       uint64
	nc       net.Conn
	host     string // the client's IP as Kafka reports it: "/127.0.0.1"
	e        *engine
	maxFrame int32
	logf     func(string, ...any)
	clientID string    // the last client.id the live trace saw; engine only
	listener string    // the name of the listener it came through
	tls      bool      // the listener is SSL or SASL_SSL
	sasl     *saslConn // SASL_PLAINTEXT and SASL_SSL listeners (sasl.go)
	who      string    // the principal, once known (principal.go)

	// mutedUntil (unix ns) is when the connection may be read again
	// after a throttled answer (KIP-219); set by the engine.
	mutedUntil atomic.Int64

	seq int32 // the last request number given (read goroutine only)

	mu     sync.Mutex
	queue  []*slot
	closed bool // close ran: the queue is dropped, and so is any answer completed later
	wake   chan struct{}
	held   *inflight
	done   chan struct{}
	once   sync.Once
}

func newConn(id uint64, nc net.Conn, e *engine, maxFrame int32, logf func(string, ...any)) *conn {
	return &conn{
		id: id, nc: nc, e: e, maxFrame: maxFrame, logf: logf, host: clientHost(nc.RemoteAddr()),
		wake: make(chan struct{}, 1),
		held: newInflight(),
		done: make(chan struct{}),
	}
}

// clientHost formats a client's address as Kafka's DescribeGroups does
// (InetAddress.toString of a numeric address: "/127.0.0.1").
func clientHost(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return "/" + t.IP.String()
	}
	return "/" + a.String()
}

func (c *conn) serve() {
	c.send(inbound{conn: c, kind: evOpen})
	go c.write()
	err := c.read()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) {
		c.logf("closing connection from %s: %v", c.nc.RemoteAddr(), err)
	}
	c.close()
}

func (c *conn) close() {
	c.once.Do(func() {
		c.nc.Close()
		c.mu.Lock()
		c.closed = true
		for _, s := range c.queue {
			broker.Release(s.ranged)
		}
		c.queue = nil
		c.mu.Unlock()
		close(c.done)
		go c.send(inbound{conn: c, kind: evClose})
	})
}

// send hands an event to the engine unless the server is stopping.
func (c *conn) send(in inbound) bool {
	select {
	case c.e.in <- in:
		return true
	case <-c.e.stopping:
		return false
	}
}

// read frames, decodes and submits requests until the connection ends.
func (c *conn) read() error {
	var size [4]byte
	for {
		if _, err := io.ReadFull(c.nc, size[:]); err != nil {
			return err
		}
		n := int32(binary.BigEndian.Uint32(size[:]))
		if size[0] == tlsHandshake && size[1] == 3 && !c.tls {
			return fmt.Errorf("a TLS handshake on the %s listener, which is plaintext: the client is set for SSL on a port without it", c.listener)
		}
		if n < 0 || n > c.maxFrame {
			return fmt.Errorf("frame of %d bytes exceeds socket.request.max.bytes (%d)", n, c.maxFrame)
		}
		if !c.held.acquire(int64(n), c.done) {
			return nil
		}
		frame, pooled, err := readFrame(c.nc, int(n))
		if err != nil {
			return fmt.Errorf("truncated frame (%d bytes announced): %w", n, err)
		}
		if !c.waitUnmuted() {
			return nil
		}
		if c.sasl != nil && c.sasl.raw {
			if err := c.rawToken(frame); err != nil {
				return err
			}
			continue
		}
		h, req, err := decode(frame)
		var verr *wire.VersionError
		switch {
		case errors.As(err, &verr) || err == nil && !broker.Serves(h.Key, h.Version):
			if h.Key != 18 {
				return unserved(h)
			}
			if err != nil {
				c.enqueue(&slot{corr: h.CorrelationID, size: int64(n), raw: versionErrorFrame(h), ready: true})
				c.signal()
				continue
			}
		case err != nil:
			return err
		}
		if c.sasl != nil {
			if handled, err := c.authenticate(h, req, int64(n)); err != nil || handled {
				if err != nil {
					return err
				}
				continue
			}
		}
		c.seq++
		s := &slot{seq: c.seq, corr: h.CorrelationID, size: int64(n)}
		h.CorrelationID = c.seq
		in := inbound{conn: c, corr: s.corr, size: s.size, req: broker.Request{Conn: c.id, Header: h, Msg: req, Host: c.host, Listener: c.listener, Principal: c.principal(), ZeroCopy: c.zeroCopy()}}
		p, produce := req.(*kmsg.ProduceRequest)
		switch {
		case produce && p.Acks == 0:
			in.noReply = true // the engine releases it once handled
		case produce:
			s.frame = pooled
			c.enqueue(s)
		default:
			c.enqueue(s)
		}
		if !c.send(in) {
			return nil
		}
	}
}

// unserved is the reason a connection closes on a request for an API or
// version this broker does not serve. Kafka closes the connection too
// (ApiVersions excepted, KIP-511): an error answer cannot be trusted to
// read as a failure, since a response with no per-item fields (an
// ElectLeaders v0 naming no partitions) would carry the error nowhere.
func unserved(h wire.Header) error {
	return fmt.Errorf("%s (api key %d) v%d is not served (ApiVersions lists what is): closing the connection", kmsg.NameForKey(h.Key), h.Key, h.Version)
}

// versionErrorFrame answers an ApiVersions request of a version kmsg
// cannot decode: a v0 answer with UNSUPPORTED_VERSION and the versions
// served, so the client can retry with one of them (KIP-511).
func versionErrorFrame(h wire.Header) []byte {
	return wire.AppendResponse(nil, h.CorrelationID, broker.ApiVersionsFallback())
}

// enqueue takes a place in the response order; the reader acquired its
// bytes already.
func (c *conn) enqueue(s *slot) {
	c.mu.Lock()
	c.queue = append(c.queue, s)
	c.mu.Unlock()
}

// complete fills the open place of request seq with resp and its pinned
// ranges, and returns the client's correlation id for it; on a closed
// connection it releases the ranges. It runs on the engine. A produce's
// pooled frame goes back to its pool: the broker is done with it. The request-time quota's
// throttle (broker.Response.Throttle) goes into the answer when larger
// than its own. A throttled answer (a quota, KIP-219) mutes the
// connection: no request read after it is handled before the throttle
// time has passed.
func (c *conn) complete(seq int32, resp kmsg.Response, throttle int32, ranged []wire.Ranged) (corr int32, ok bool) {
	if t, ok := resp.(kmsg.ThrottleResponse); ok {
		ms, _ := t.Throttle()
		if throttle > ms {
			ms = throttle
			resp.(kmsg.SetThrottleResponse).SetThrottle(ms)
		}
		if ms > 0 {
			c.mutedUntil.Store(time.Now().Add(time.Duration(ms) * time.Millisecond).UnixNano())
		}
	}
	var frame *[]byte
	c.mu.Lock()
	if i := slices.IndexFunc(c.queue, func(s *slot) bool { return !s.ready && s.raw == nil && s.seq == seq }); i >= 0 && !c.closed {
		s := c.queue[i]
		s.resp, s.ranged, s.ready = resp, ranged, true
		corr, ok = s.corr, true
		frame, s.frame = s.frame, nil
	}
	c.mu.Unlock()
	if frame != nil {
		putFrame(frame) // answered: the broker holds nothing of it
	}
	if !ok {
		broker.Release(ranged)
	}
	if ok {
		c.signal()
	}
	return corr, ok
}

// waitUnmuted waits until the connection is no longer muted; false when
// it closed meanwhile.
func (c *conn) waitUnmuted() bool {
	wait := time.Until(time.Unix(0, c.mutedUntil.Load()))
	if wait <= 0 {
		return true
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	}
}

func (c *conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// write sends completed responses in request order.
func (c *conn) write() {
	var (
		buf     []byte
		inserts []wire.Insert
		pieces  net.Buffers
	)
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		c.mu.Lock()
		n := 0
		for n < len(c.queue) && c.queue[n].ready {
			n++
		}
		ready := append([]*slot(nil), c.queue[:n]...)
		c.queue = c.queue[n:]
		c.mu.Unlock()
		var err error
		buf, inserts, err = c.writeSlots(buf[:0], inserts[:0], &pieces, ready)
		for _, s := range ready {
			broker.Release(s.ranged)
			c.held.release(s.size)
		}
		if err != nil {
			if !errors.Is(err, errSocket) { // a client gone is not news
				c.logf("closing connection from %s: %v", c.nc.RemoteAddr(), err)
			}
			c.close()
			return
		}
		clear(inserts) // drop references to the batches
		if cap(buf) > maxKeptBuffer {
			buf = nil
		}
	}
}

// writeSlots encodes the ready answers into buf and writes them: record
// batches go from the log's read to the socket as they are, with
// vectored writes, and pinned ranges with sendfile (conn_send.go). It
// returns buf and inserts for reuse; an error of the socket wraps
// errSocket.
func (c *conn) writeSlots(buf []byte, inserts []wire.Insert, pieces *net.Buffers, ready []*slot) ([]byte, []wire.Insert, error) {
	buf, inserts, err := encodeAll(buf, inserts, ready)
	if err != nil || len(buf) == 0 {
		return buf, inserts, err
	}
	return buf, inserts, wire.Send(buf, inserts, *pieces, func(ps [][]byte) error {
		*pieces = ps
		if _, err := pieces.WriteTo(c.nc); err != nil {
			return fmt.Errorf("%w: %w", errSocket, err)
		}
		return nil
	}, c.sendSpan)
}

// encodeAll appends the frames of slots to buf; a panic in an encoder is
// returned as an error, which closes only this connection (panic.go).
func encodeAll(buf []byte, inserts []wire.Insert, slots []*slot) (_ []byte, _ []wire.Insert, err error) {
	defer recoverAs(&err, "encoding a response")
	for _, s := range slots {
		if buf, inserts, err = encode(buf, inserts, s); err != nil {
			return buf, inserts, err
		}
	}
	return buf, inserts, nil
}

// encode appends one response frame to buf. A Fetch response's record
// batches are not copied: they become inserts for the vectored write, or
// stay the pinned ranges they are. An answer the fast frame declines is
// encoded by kmsg, its ranges read first (materialize).
func encode(buf []byte, inserts []wire.Insert, s *slot) ([]byte, []wire.Insert, error) {
	if s.raw != nil {
		return append(buf, s.raw...), inserts, nil
	}
	if f, ok := s.resp.(*kmsg.FetchResponse); ok {
		if out, ins, ok := wire.AppendFetchFrame(buf, inserts, s.corr, f, s.ranged); ok {
			return out, ins, nil
		}
		ranged := s.ranged
		s.ranged = nil
		if err := materialize(f, ranged); err != nil {
			return buf, inserts, err
		}
	}
	return wire.AppendResponse(buf, s.corr, s.resp), inserts, nil
}
