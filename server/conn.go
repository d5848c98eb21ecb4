package server

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

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

// maxInFlight bounds the requests a connection may have outstanding; the
// reader stops reading until the writer catches up.
const maxInFlight = 128

// slot is one place in a connection's response order.
type slot struct {
	corr  int32
	resp  kmsg.Response
	raw   []byte // a pre-encoded frame, for answers kmsg cannot encode
	ready bool
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

	mu     sync.Mutex
	queue  []*slot
	wake   chan struct{}
	tokens chan struct{}
	done   chan struct{}
	once   sync.Once
}

func newConn(id uint64, nc net.Conn, e *engine, maxFrame int32, logf func(string, ...any)) *conn {
	return &conn{
		id: id, nc: nc, e: e, maxFrame: maxFrame, logf: logf, host: clientHost(nc.RemoteAddr()),
		wake:   make(chan struct{}, 1),
		tokens: make(chan struct{}, maxInFlight),
		done:   make(chan struct{}),
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
		frame := make([]byte, n)
		if _, err := io.ReadFull(c.nc, frame); err != nil {
			return fmt.Errorf("truncated frame (%d bytes announced): %w", n, err)
		}
		if c.sasl != nil && c.sasl.raw {
			if err := c.rawToken(frame); err != nil {
				return err
			}
			continue
		}
		h, req, err := wire.ParseRequest(frame)
		var verr *wire.VersionError
		switch {
		case errors.As(err, &verr) || err == nil && !broker.Serves(h.Key, h.Version):
			if h.Key != 18 {
				return unserved(h)
			}
			if err != nil {
				if !c.enqueue(&slot{corr: h.CorrelationID, raw: versionErrorFrame(h), ready: true}) {
					return nil
				}
				c.signal()
				continue
			}
		case err != nil:
			return err
		}
		if c.sasl != nil {
			if handled, err := c.authenticate(h, req); err != nil || handled {
				if err != nil {
					return err
				}
				continue
			}
		}
		if p, ok := req.(*kmsg.ProduceRequest); ok && p.Acks == 0 {
			if !c.send(inbound{conn: c, req: broker.Request{Conn: c.id, Header: h, Msg: req, Host: c.host, Listener: c.listener, Principal: c.principal()}}) {
				return nil
			}
			continue
		}
		if !c.enqueue(&slot{corr: h.CorrelationID}) {
			return nil
		}
		if !c.send(inbound{conn: c, req: broker.Request{Conn: c.id, Header: h, Msg: req, Host: c.host, Listener: c.listener, Principal: c.principal()}}) {
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

// enqueue takes a place in the response order, waiting while too many
// requests are outstanding.
func (c *conn) enqueue(s *slot) bool {
	select {
	case c.tokens <- struct{}{}:
	case <-c.done:
		return false
	}
	c.mu.Lock()
	c.queue = append(c.queue, s)
	c.mu.Unlock()
	return true
}

// complete fills the oldest open place for corr. It runs on the engine.
func (c *conn) complete(corr int32, resp kmsg.Response) {
	c.mu.Lock()
	for _, s := range c.queue {
		if !s.ready && s.corr == corr {
			s.resp, s.ready = resp, true
			break
		}
	}
	c.mu.Unlock()
	c.signal()
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
		buf, inserts = buf[:0], inserts[:0]
		for _, s := range ready {
			buf, inserts = encode(buf, inserts, s)
		}
		if len(buf) == 0 {
			continue
		}
		// Record batches go from the log's read to the socket as they are,
		// with one vectored write for everything that is ready.
		pieces = wire.Pieces(buf, inserts, pieces[:0])
		if _, err := pieces.WriteTo(c.nc); err != nil {
			c.close()
			return
		}
		clear(inserts) // drop references to the batches
		for range ready {
			<-c.tokens
		}
		if cap(buf) > maxKeptBuffer {
			buf = nil
		}
	}
}

// encode appends one response frame to buf. A Fetch response's record
// batches are not copied: they become inserts for the vectored write.
func encode(buf []byte, inserts []wire.Insert, s *slot) ([]byte, []wire.Insert) {
	if s.raw != nil {
		return append(buf, s.raw...), inserts
	}
	if f, ok := s.resp.(*kmsg.FetchResponse); ok {
		if out, ins, ok := wire.AppendFetchFrame(buf, inserts, s.corr, f); ok {
			return out, ins
		}
	}
	return wire.AppendResponse(buf, s.corr, s.resp), inserts
}
