package server

import (
	"bufio"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/cluster/quorum"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The native cluster driver: every gregor process started with
// --controller-quorum is a broker and a voter of the metadata quorum
// (KRaft's combined mode), wired exactly as the simulator wires them
// (core/sim/cluster.go). All quorum.Node and broker calls happen on the
// engine goroutine; the controller listener and the peer links only move
// frames between processes.
//
// Every node listens on its --controller-addr. Between two nodes travel
// length-prefixed frames:
//
//	size int32 | type int8 | from int32 (sender's node id) | body
//
// type 1: a raft message (proto encoding of raftpb.Message);
// type 2: a request of one broker to another, or to the controller:
//
//	id uint64 | ctl int8 | key int16 | version int16 | kmsg body
//
// type 3: the answer to a type 2 request, with the same header;
// type 4: SASL authentication on a SASL controller listener, before any
// other frame, laid out as type 2 and 3 and answered on the same
// connection (peer_sasl.go).
//
// Each node sends on its own outbound link to the peer; answers come back
// on the peer's outbound link, so a link is one-way and never waits for a
// reply.

// RaftTick is how much wall time one quorum tick stands for (the
// simulator's RaftTickMs).
const RaftTick = 100 * time.Millisecond

const (
	frameRaft byte = 1
	frameReq  byte = 2
	frameResp byte = 3
)

// peerDialTimeout bounds a dial of a peer link; peerUnackedTimeout is how
// long data sent on one may stay unacknowledged before the link is
// dropped and redialled (peer_dial_linux.go). Well under
// broker.session.timeout.ms, so links are fresh by the time a cut-off
// broker is fenced or returns. While a peer is unreachable its link dials
// again about every peerDialTimeout (a dial to a host that is gone waits
// for ARP and times out): that much, at most, after the network heals
// the link is back.
const (
	peerDialTimeout    = 500 * time.Millisecond
	peerUnackedTimeout = 3 * time.Second
)

// maxPeerFrame bounds a frame between nodes (a follower fetch answer).
const maxPeerFrame = 256 << 20

// peerConnBase numbers the pseudo connections on which the broker serves
// requests of other brokers: peerConnBase + the sender's node id.
const peerConnBase = 1 << 62

// raftID maps a Kafka node id to a raft id (raft ids are never 0).
func raftID(id int32) uint64 { return uint64(id) + 1 }

// ParseQuorum parses --controller-quorum: 1@host:port,2@host:port,...
func ParseQuorum(s string) (map[int32]string, error) { return ParseNodes("controller quorum", s) }

// ParseNodes parses a flag that gives each node an address, what (named
// in errors) as --controller-quorum spells it: 1@host:port,2@host:port,...
func ParseNodes(what, s string) (map[int32]string, error) {
	out := map[int32]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		idStr, addr, ok := strings.Cut(part, "@")
		if !ok {
			return nil, fmt.Errorf("%s %q: want id@host:port", what, part)
		}
		id, err := strconv.ParseInt(idStr, 10, 32)
		if err != nil || id < 0 {
			return nil, fmt.Errorf("%s %q: bad node id", what, part)
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			return nil, fmt.Errorf("%s %q: %w", what, part, err)
		}
		if _, dup := out[int32(id)]; dup {
			return nil, fmt.Errorf("%s: node %d given twice", what, id)
		}
		out[int32(id)] = addr
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: empty", what)
	}
	return out, nil
}

type ctlPending struct {
	from  int32 // node id of the broker that asked
	reqID uint64
	ver   int16
}

// clusterDriver is the engine's part of a clustered node.
type clusterDriver struct {
	id      int32
	node    *quorum.Node
	ln      net.Listener
	links   map[int32]*peerLink
	ctlNext uint64
	pending map[uint64]ctlPending
	// outstanding: requests of our broker sent to a peer and not yet
	// answered (request id -> peer); failed: those to fail at the next
	// tick because the link to their peer broke.
	outstanding map[uint64]int32
	failed      []uint64
	// lead is the raft leader last known, where controller requests go;
	// when it changes the broker re-sends them (ControllerMoved).
	lead uint64
	logf func(string, ...any)
	// peer secures the controller listener and the links (nil: plaintext);
	// authz, when set, must let a SASL peer ClusterAction; bootstrap are
	// the --add-scram credentials (peer_sasl.go).
	peer      *PeerSecurity
	authz     *cluster.Authorizer
	bootstrap []*cluster.ScramCredential
	// reauth (connections.max.reauth.ms) bounds a peer's SASL session
	// on this node's controller listener (peer_reauth.go); 0: for ever.
	reauth time.Duration
	// self is this node's principal, which the requests it sends to
	// itself as the controller carry (selfPrincipal).
	self string

	mu    sync.Mutex
	conns map[net.Conn]bool
	// refusals is the last refusal logged per peer (peer_sasl.go).
	refusals map[string]string
}

// startCluster opens the quorum member and the controller listener, and
// makes cfg a clustered broker config. Called from Start.
func (s *Server) startCluster(cfg *broker.Config, st store.Storage, creds []*cluster.ScramCredential) error {
	c := s.cfg
	id := int32(c.Settings.Int64("node.id"))
	if _, ok := c.ControllerQuorum[id]; !ok {
		return fmt.Errorf("controller quorum: node.id %d is not one of its voters", id)
	}
	var voters []uint64
	for v := range c.ControllerQuorum {
		voters = append(voters, raftID(v))
	}
	sort.Slice(voters, func(i, j int) bool { return voters[i] < voters[j] })
	q, err := quorum.NewNode(quorum.Config{
		ID: raftID(id), Voters: voters, ElectionTicks: 10, HeartbeatTicks: 1,
		SessionTicks:                 c.Settings.Int64("broker.session.timeout.ms") / RaftTick.Milliseconds(),
		DefaultPartitions:            int32(c.Settings.Int64("num.partitions")),
		DefaultReplicationFactor:     int16(c.Settings.Int64("default.replication.factor")),
		UncleanDefault:               c.Settings.Bool("unclean.leader.election.enable"),
		Settings:                     c.Settings,
		AutoLeaderRebalance:          c.Settings.Bool("auto.leader.rebalance.enable"),
		ImbalanceCheckTicks:          c.Settings.Int64("leader.imbalance.check.interval.seconds") * 1000 / RaftTick.Milliseconds(),
		ImbalancePerBrokerPercentage: int(c.Settings.Int64("leader.imbalance.per.broker.percentage")),
		Rand:                         cfg.Rand,
		Storage:                      st,
		BootstrapScram:               creds,
		Features:                     cfg.Features,
	})
	if err != nil {
		return err
	}
	addr := c.ControllerAddr
	if addr == "" {
		addr = c.ControllerQuorum[id]
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = q.Close()
		return fmt.Errorf("controller listener: %w", err)
	}
	if c.Peer != nil && c.Peer.Accept.TLS != nil {
		ln = tls.NewListener(ln, c.Peer.Accept.TLS)
	}
	d := &clusterDriver{id: id, node: q, ln: ln, links: map[int32]*peerLink{},
		pending: map[uint64]ctlPending{}, outstanding: map[uint64]int32{}, logf: c.Logf, conns: map[net.Conn]bool{},
		peer: c.Peer, authz: c.Authorizer, bootstrap: creds, refusals: map[string]string{}, reauth: c.SASLReauth,
		self: selfPrincipal(c.Peer)}
	for pid, paddr := range c.ControllerQuorum {
		if pid != id {
			d.links[pid] = newPeerLink(id, pid, paddr, c.Peer, s.e)
		}
	}
	var inc [16]byte
	_, _ = rand.Read(inc[:])
	cfg.Cluster = &broker.ClusterConfig{Incarnation: inc}
	s.e.cl = d
	return nil
}

// serveController accepts peer connections until the listener closes.
func (d *clusterDriver) serveController(e *engine) {
	for {
		nc, err := d.ln.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		d.conns[nc] = true
		d.mu.Unlock()
		go func() {
			defer func() {
				nc.Close()
				d.mu.Lock()
				delete(d.conns, nc)
				d.mu.Unlock()
			}()
			r := bufio.NewReaderSize(nc, 64<<10)
			who, expires, err := d.admitPeer(nc, r, e)
			if err == nil {
				err = readPeerFrames(r, e, who, expires)
			}
			if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, net.ErrClosed) && !errors.Is(err, errRefused) {
				d.logf("controller connection from %s: %v", nc.RemoteAddr(), err)
			}
		}()
	}
}

func (d *clusterDriver) close() {
	d.ln.Close()
	d.mu.Lock()
	for nc := range d.conns {
		nc.Close()
	}
	d.mu.Unlock()
	for _, l := range d.links {
		l.close()
	}
}

// readPeerFrames decodes frames from one peer connection, whose peer is
// principal, into engine events.
func readPeerFrames(r io.Reader, e *engine, principal string, expires time.Time) error {
	for {
		buf, pooled, err := readPeerFrame(r)
		if err != nil {
			return err
		}
		if !expires.IsZero() && time.Now().After(expires) {
			return fmt.Errorf("the SASL session of %s expired (connections.max.reauth.ms) without re-authentication: closing", principal)
		}
		in, err := decodePeerFrame(buf)
		if err != nil {
			return err
		}
		in.principal = principal
		if _, ok := in.resp.(*kmsg.FetchResponse); ok {
			in.frame = pooled // a follower's fetch answer: given back once received
		}
		select {
		case e.in <- in:
		case <-e.stopping:
			return nil
		}
	}
}

func decodePeerFrame(buf []byte) (inbound, error) {
	typ, from, body := buf[0], int32(binary.BigEndian.Uint32(buf[1:5])), buf[5:]
	in := inbound{peer: from}
	switch typ {
	case frameRaft:
		m := new(pb.Message)
		if err := proto.Unmarshal(body, m); err != nil {
			return in, fmt.Errorf("raft message: %w", err)
		}
		in.kind, in.raft = evRaft, m
		return in, nil
	case frameReq, frameResp:
		if len(body) < 13 {
			return in, errors.New("short peer frame")
		}
		in.id = binary.BigEndian.Uint64(body)
		in.ctl = body[8] == 1
		key := int16(binary.BigEndian.Uint16(body[9:]))
		ver := int16(binary.BigEndian.Uint16(body[11:]))
		body = body[13:]
		if typ == frameReq {
			req := kmsg.RequestForKey(key)
			if req == nil {
				return in, fmt.Errorf("unknown request key %d", key)
			}
			req.SetVersion(ver)
			if err := req.ReadFrom(body); err != nil {
				return in, fmt.Errorf("%s request: %w", kmsg.NameForKey(key), err)
			}
			in.kind, in.msg = evPeerRequest, req
		} else {
			resp := kmsg.ResponseForKey(key)
			if resp == nil {
				return in, fmt.Errorf("unknown response key %d", key)
			}
			resp.SetVersion(ver)
			if err := resp.ReadFrom(body); err != nil {
				return in, fmt.Errorf("%s response: %w", kmsg.NameForKey(key), err)
			}
			in.kind, in.resp = evPeerResponse, resp
		}
		return in, nil
	}
	return in, fmt.Errorf("unknown frame type %d", typ)
}

func frameHeader(typ byte, from int32) []byte {
	return appendFrameHeader(make([]byte, 0, 256), typ, from)
}

// appendFrameHeader starts a frame in dst: four bytes for its length
// (finishFrame writes them), its type and its sender.
func appendFrameHeader(dst []byte, typ byte, from int32) []byte {
	return binary.BigEndian.AppendUint32(append(dst, 0, 0, 0, 0, typ), uint32(from))
}

func finishFrame(buf []byte) []byte {
	binary.BigEndian.PutUint32(buf, uint32(len(buf)-4))
	return buf
}

func kmsgFrame(typ byte, from int32, id uint64, ctl bool, key, ver int16, appendBody func([]byte) []byte) []byte {
	return finishFrame(appendBody(appendKmsgHeader(make([]byte, 0, 256), typ, from, id, ctl, key, ver)))
}

// appendKmsgHeader starts a type 2 or 3 frame in dst: its bytes before
// the kmsg body.
func appendKmsgHeader(dst []byte, typ byte, from int32, id uint64, ctl bool, key, ver int16) []byte {
	dst = appendFrameHeader(dst, typ, from)
	dst = binary.BigEndian.AppendUint64(dst, id)
	c := byte(0)
	if ctl {
		c = 1
	}
	dst = append(dst, c)
	dst = binary.BigEndian.AppendUint16(dst, uint16(key))
	return binary.BigEndian.AppendUint16(dst, uint16(ver))
}

// peerLink is this node's outbound connection to one peer. Frames are
// queued without blocking the engine; when the peer cannot be reached they
// are dropped (raft and the broker retry), as the network would.
type peerLink struct {
	self, peer int32
	addr       string
	sec        *PeerSecurity // nil: plaintext, no SASL
	e          *engine
	// refusedBy is the peer's last refusal of this node's SASL
	// authentication, logged once.
	refusedBy string
	q         chan outFrame
	done      chan struct{}
	once      sync.Once
}

func newPeerLink(self, peer int32, addr string, sec *PeerSecurity, e *engine) *peerLink {
	l := &peerLink{self: self, peer: peer, addr: addr, sec: sec, e: e, q: make(chan outFrame, 4096), done: make(chan struct{})}
	go l.run()
	return l
}

// send queues frame, which belongs to the link from then on.
func (l *peerLink) send(frame []byte) { l.sendOut(outFrame{buf: frame}) }

// sendOut queues f, whose buffer and ranges are the link's from then on
// (outFrame.done gives them back once written or dropped).
func (l *peerLink) sendOut(f outFrame) {
	select {
	case l.q <- f:
	default: // backlog full: drop
		f.done()
		l.unreachable()
	}
}

func (l *peerLink) close() { l.once.Do(func() { close(l.done) }) }

// drain gives back the frames still queued when the link ends.
func (l *peerLink) drain() {
	for {
		select {
		case f := <-l.q:
			f.done()
		default:
			return
		}
	}
}

func (l *peerLink) unreachable() {
	select {
	case l.e.in <- inbound{kind: evUnreachable, peer: l.peer}:
	default:
	}
}

func (l *peerLink) run() {
	var nc net.Conn
	var w *bufio.Writer
	var gone chan struct{}   // closed when the peer has ended nc
	var retire chan struct{} // closed when this side ends nc (renewal)
	var retryAt, renewAt time.Time
	var pieces [][]byte // reused by writeOut
	defer func() {
		if nc != nil {
			nc.Close()
		}
		l.drain()
	}()
	for {
		var frame outFrame
		select {
		case <-l.done:
			return
		case frame = <-l.q:
		}
		if nc != nil {
			select {
			case <-gone: // the peer went away: redial for this frame
				nc, w = nil, nil
			default:
				if !renewAt.IsZero() && time.Now().After(renewAt) {
					// The SASL session nears its end: authenticate
					// again on a new connection (peer_reauth.go).
					close(retire)
					nc.Close()
					nc, w = nil, nil
				}
			}
		}
		if nc == nil {
			// After a failed dial frames are dropped for a while, but not
			// an answer (buf[4] is the type): the peer asked just now,
			// so it is back, and would otherwise wait
			// replica.socket.timeout.ms for it.
			if time.Now().Before(retryAt) && frame.buf[4] != frameResp {
				frame.done()
				l.unreachable() // dropped
				continue
			}
			c, lifetime, err := l.dial()
			if err != nil {
				frame.done()
				retryAt = time.Now().Add(200 * time.Millisecond)
				l.unreachable()
				continue
			}
			nc, w, gone, retire = c, bufio.NewWriterSize(c, 64<<10), make(chan struct{}), make(chan struct{})
			renewAt = time.Time{}
			if lifetime > 0 {
				renewAt = time.Now().Add(lifetime * renewPercent / 100)
			}
			// Nothing comes back on this connection; reading notices at
			// once when the peer goes away (a killed process), so the
			// next frame redials instead of vanishing into a dead socket.
			go func(gone, retire chan struct{}) {
				_, _ = io.Copy(io.Discard, c)
				c.Close()
				close(gone)
				select {
				case <-retire:
				default:
					l.unreachable()
				}
			}(gone, retire)
		}
		_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
		err := writeOut(nc, w, frame, &pieces, l.e.metrics)
		// write what else is queued before flushing
		for err == nil && len(l.q) > 0 {
			err = writeOut(nc, w, <-l.q, &pieces, l.e.metrics)
		}
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			nc.Close()
			nc, w = nil, nil
			l.unreachable()
		}
	}
}

// dial connects to the peer, over TLS and with SASL when configured, and
// returns the SASL session's lifetime (0: for ever); a refusal of this
// node's credentials is logged once.
func (l *peerLink) dial() (net.Conn, time.Duration, error) {
	d := peerDialer()
	if l.sec == nil {
		nc, err := d.Dial("tcp", l.addr)
		return nc, 0, err
	}
	var nc net.Conn
	var err error
	if l.sec.DialTLS != nil {
		nc, err = tls.DialWithDialer(d, "tcp", l.addr, l.sec.DialTLS)
	} else {
		nc, err = d.Dial("tcp", l.addr)
	}
	if err != nil || l.sec.Mechanism == "" {
		return nc, 0, err
	}
	lifetime, err := l.authenticate(nc)
	var refused *peerAuthError
	switch {
	case errors.As(err, &refused):
		if refused.msg != l.refusedBy {
			l.e.logf("node %d at %s refused this node's SASL authentication as %s with %s: %s (check listener.name.%s.%s)",
				l.peer, l.addr, l.sec.User, l.sec.Mechanism, refused.msg, strings.ToLower(l.sec.Listener), jaasKey(l.sec.Mechanism))
		}
		l.refusedBy = refused.msg
	case err == nil && l.refusedBy != "":
		l.e.logf("node %d at %s accepted this node's SASL authentication as %s", l.peer, l.addr, l.sec.User)
		l.refusedBy = ""
	}
	if err != nil {
		nc.Close()
		return nil, 0, err
	}
	return nc, lifetime, nil
}

// --- on the engine goroutine ---

// brokerSend routes a request of the local broker (a Send of its Ready):
// to a peer broker, or to the node hosting the active controller (the
// local node when it is the controller or no leader is known: it answers
// NOT_CONTROLLER itself). The local node's quorum gets it at once, and
// may answer at once: flush runs this after the broker's call returned.
func (e *engine) brokerSend(s broker.Send) {
	d := e.cl
	to, reqID, req := s.To, s.ID, s.Req
	ctl := to == broker.ToController
	if ctl {
		to = d.id
		st := d.node.Status()
		if !st.Controller && st.Lead != 0 {
			to = int32(st.Lead - 1)
		}
		if to == d.id {
			e.submitCtl(d.id, reqID, req, d.self)
			return
		}
	}
	l := d.links[to]
	if l == nil {
		return // unknown broker: the request times out
	}
	d.outstanding[reqID] = to
	l.send(kmsgFrame(frameReq, d.id, reqID, ctl, req.Key(), req.GetVersion(), req.AppendTo))
}

// submitCtl hands a controller request to the local quorum node. An
// Envelope (a client's request another broker, or this one, forwarded:
// core/broker/envelope.go) is unwrapped by the local broker while this
// node hosts the active controller, and answered NOT_CONTROLLER when not.
func (e *engine) submitCtl(from int32, reqID uint64, req kmsg.Request, principal string) {
	d := e.cl
	if env, ok := req.(*kmsg.EnvelopeRequest); ok {
		if !d.node.Status().Controller {
			e.answerPeer(from, reqID, broker.EnvelopeError(env, kerr.NotController.Code))
			return
		}
		e.b.HandleEnvelope(time.Now().UnixMilli(), broker.Request{Conn: peerConnBase + uint64(from), Msg: env, Principal: principal,
			Header: wire.Header{Key: env.Key(), Version: env.GetVersion(), CorrelationID: int32(uint32(reqID)),
				ClientID: fmt.Sprintf("broker-%d", from)}})
		return
	}
	d.ctlNext++
	d.pending[d.ctlNext] = ctlPending{from: from, reqID: reqID, ver: req.GetVersion()}
	d.node.Submit(d.ctlNext, req)
	e.process()
}

// process runs the quorum node's Process and routes its output.
func (e *engine) process() {
	d := e.cl
	out, err := d.node.Process()
	if errors.Is(err, quorum.ErrHalted) {
		// The metadata log could not be written: a fatal fault (halt.go).
		e.halt("metadata quorum: %v", err)
		return
	}
	if err != nil {
		e.logf("metadata quorum: %v", err) // a snapshot not written: the log still holds it all
		return
	}
	for _, m := range out.Messages {
		to := int32(m.GetTo() - 1)
		l := d.links[to]
		if l == nil {
			continue
		}
		body, err := proto.Marshal(m)
		if err != nil {
			e.logf("raft message: %v", err)
			continue
		}
		l.send(finishFrame(append(frameHeader(frameRaft, d.id), body...)))
	}
	now := time.Now().UnixMilli()
	if lead := d.node.Status().Lead; lead != d.lead {
		d.lead = lead
		e.b.ControllerMoved(now)
	}
	for _, r := range out.Responses {
		p, ok := d.pending[r.ID]
		if !ok {
			continue
		}
		delete(d.pending, r.ID)
		r.Msg.SetVersion(p.ver)
		if p.from == d.id {
			e.b.Receive(now, p.reqID, r.Msg)
			continue
		}
		if l := d.links[p.from]; l != nil {
			l.send(kmsgFrame(frameResp, d.id, p.reqID, true, r.Msg.Key(), p.ver, r.Msg.AppendTo))
		}
	}
	if len(out.Applied) > 0 {
		e.metrics.applied(d.id, out.Applied)
		if err := e.b.ApplyMetadata(now, d.node.Image().Clone()); err != nil {
			e.logf("applying metadata: %v", err)
		}
	}
}

// handleCluster handles the engine events of a clustered node.
func (e *engine) handleCluster(in inbound) {
	d := e.cl
	if d == nil {
		return
	}
	now := time.Now().UnixMilli()
	switch in.kind {
	case evShutdown:
		e.b.BeginControlledShutdown(now)
		e.shutdownReady = in.ready
	case evRaft:
		if err := d.node.Step(in.raft); err == nil {
			e.process()
		}
	case evUnreachable:
		d.node.ReportUnreachable(raftID(in.peer))
		// What we asked that peer may never be answered: fail it at the
		// next raft tick (not at once, so a broker retrying on failure
		// retries at most once a tick) instead of after
		// replica.socket.timeout.ms.
		for id, to := range d.outstanding {
			if to == in.peer {
				delete(d.outstanding, id)
				d.failed = append(d.failed, id)
			}
		}
	case evPeerRequest:
		if in.ctl {
			e.submitCtl(in.peer, in.id, in.msg, in.principal)
			return
		}
		e.b.Handle(now, broker.Request{Conn: peerConnBase + uint64(in.peer), Msg: in.msg, ZeroCopy: true, // peer_fetch.go
			Header: wire.Header{Key: in.msg.Key(), Version: in.msg.GetVersion(), CorrelationID: int32(uint32(in.id)),
				ClientID: fmt.Sprintf("broker-%d", in.peer)}})
	case evPeerResponse:
		delete(d.outstanding, in.id)
		e.b.Receive(now, in.id, in.resp)
		if in.frame != nil {
			// A fetch answer: the broker appended its batches to the log,
			// which copies them (store.File.Append), and keeps nothing of it.
			putFrame(in.frame)
		}
	case evRaftTick:
		failed := d.failed
		d.failed = nil
		slices.Sort(failed)
		for _, id := range failed {
			e.b.Receive(now, id, nil) // ignored if answered meanwhile
		}
		if len(d.outstanding) > 1<<16 {
			// answers lost without a broken link: the broker timed them
			// out long ago
			clear(d.outstanding)
		}
		d.node.Tick()
		e.process()
	}
}

// deliverPeer sends the broker's answer to another broker's request.
func (e *engine) deliverPeer(r broker.Response) {
	if len(r.Ranged) > 0 {
		e.answerPeerFetch(int32(r.Conn-peerConnBase), uint64(uint32(r.CorrelationID)), r.Msg.(*kmsg.FetchResponse), r.Ranged)
		return
	}
	e.answerPeer(int32(r.Conn-peerConnBase), uint64(uint32(r.CorrelationID)), r.Msg)
}

// answerPeer sends the answer to a peer's request id; an answer to this
// node's own broker (an Envelope it sent its own controller) is received
// at once, which is safe: it runs while flush carries out a Ready, never
// inside a broker call.
func (e *engine) answerPeer(peer int32, id uint64, msg kmsg.Response) {
	d := e.cl
	if peer == d.id {
		e.b.Receive(time.Now().UnixMilli(), id, msg)
		return
	}
	if l := d.links[peer]; l != nil {
		l.send(kmsgFrame(frameResp, d.id, id, false, msg.Key(), msg.GetVersion(), msg.AppendTo))
	}
}
