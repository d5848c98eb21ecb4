package server

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/server/live"
)

// inbound is one event from a connection, in the order the connection saw
// it: opened, a decoded request, or closed.
type inbound struct {
	conn *conn
	kind eventKind
	req  broker.Request
	corr int32 // the client's correlation id (req's is the connection's seq)
	// ready (evShutdown) is closed when the controlled shutdown may end.
	ready chan struct{}
	// size is the request's bytes, held in conn's inflight; noReply
	// (acks=0) means the engine releases them once it handled it.
	size    int64
	noReply bool

	// cluster events (cluster.go)
	peer int32 // the node it came from
	// principal is the peer's on its connection (admitPeer).
	principal string
	raft      *pb.Message
	id        uint64
	ctl       bool
	msg       kmsg.Request
	resp      kmsg.Response
	// frame is resp's pooled buffer when resp is a FetchResponse (its
	// record batches are slices of it), put back once it is received.
	frame *[]byte

	call func() // evCall: run on the engine (engine.call)
}

type eventKind uint8

const (
	evRequest eventKind = iota
	evOpen
	evClose
	evRaft         // a raft message from a peer
	evPeerRequest  // a request of a peer's broker
	evPeerResponse // the answer to one of our broker's requests
	evUnreachable  // a peer link failed
	evRaftTick     // time for a quorum tick
	evCall         // run a function on the engine (metrics.go)
	evShutdown     // begin a controlled shutdown (shutdown.go)
)

// engine runs the broker on one goroutine.
type engine struct {
	b        *broker.Broker
	in       chan inbound
	conns    map[uint64]*conn
	stopping <-chan struct{}
	// shutdownReady is closed once a controlled shutdown asked for may
	// proceed (shutdown.go); nil until one is asked for.
	shutdownReady chan struct{}
	logf          func(string, ...any)
	trace         *live.Hub // the live trace of real clients' requests
	// stateAt is when the trace last carried the partitions' state;
	// stateStale says a response was traced since (traceState).
	stateAt    time.Time
	stateStale bool
	node       int32    // the broker's node.id
	metrics    *metrics // set by Start

	asks consoleAsks    // the console's requests waiting (console.go)
	cl   *clusterDriver // nil for a single broker

	phase string         // what the engine is doing, for crashOnPanic
	cur   inbound        // the event it is handling
	exit  func(code int) // ends the process on a fatal fault (halt.go)
}

func newEngine(logf func(string, ...any)) *engine {
	return &engine{
		in:    make(chan inbound, 1024),
		conns: map[uint64]*conn{},
		logf:  logf,
		trace: new(live.Hub),
		exit:  exitProcess,
	}
}

// flush carries out what the broker produced (broker.Ready), in the order
// it produced it: each answer to its connection, each request to its
// node. Carrying one out may call into the broker again (a request for
// this node's own controller, an answer to this node's own broker); what
// that call produces is carried out after the rest, until the broker has
// nothing left. Every call into the broker is followed by a flush.
func (e *engine) flush() {
	for rd := e.b.Ready(); len(rd.Effects) > 0; rd = e.b.Ready() {
		for _, ef := range rd.Effects {
			if ef.Send.Req != nil {
				e.brokerSend(ef.Send)
			} else {
				e.deliver(ef.Response)
			}
		}
	}
}

// deliver routes a response of the broker to its connection.
func (e *engine) deliver(r broker.Response) {
	if e.cl != nil && r.Conn >= peerConnBase {
		e.deliverPeer(r)
		return
	}
	if r.Conn >= consoleConnBase && r.Conn < peerConnBase {
		e.answerConsole(r)
		return
	}
	c := e.conns[r.Conn]
	if c == nil {
		broker.Release(r.Ranged)
		return
	}
	if f, ok := r.Msg.(*kmsg.FetchResponse); ok && len(r.Ranged) > 0 && e.trace.Watched() {
		// The live trace describes the batches: this answer copies them.
		ranged := r.Ranged
		r.Ranged = nil
		if err := materialize(f, ranged); err != nil {
			e.logf("closing connection from %s: %v", c.nc.RemoteAddr(), err)
			c.close()
			return
		}
	}
	e.metrics.response(e, r)
	if corr, ok := c.complete(r.CorrelationID, r.Msg, r.Throttle, r.Ranged); ok {
		e.traceResponse(c, corr, r)
	}
}

// tickEvery bounds how long the engine goes without a Tick, so retention
// and flush.ms run even when no request arrives.
const tickEvery = 200 * time.Millisecond

// run processes requests until ctx ends. It drains every queued request
// before committing, so concurrent producers share one fsync per log. A
// panic ends the process (crashOnPanic).
func (e *engine) run(ctx context.Context) {
	defer e.crashOnPanic()
	e.flush() // what the broker produced as it started
	timer := time.NewTimer(tickEvery)
	defer timer.Stop()
	var raftTick <-chan time.Time
	if e.cl != nil {
		t := time.NewTicker(RaftTick)
		defer t.Stop()
		raftTick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-raftTick:
			e.handle(inbound{kind: evRaftTick})
		case in := <-e.in:
			e.handle(in)
		drain:
			for range cap(e.in) {
				select {
				case in := <-e.in:
					e.handle(in)
				default:
					break drain
				}
			}
		case <-timer.C:
		}
		e.phase = phaseTick
		now := time.Now().UnixMilli()
		e.b.Tick(now)
		e.flush()
		if err := e.b.Commit(); err != nil {
			e.logf("commit: %v", err)
		}
		e.flush() // the answers that waited for the syncs
		e.checkShutdown()
		e.checkHalt()
		e.traceState()
		wait := tickEvery
		if at, ok := e.b.NextDeadline(); ok {
			wait = min(wait, time.Duration(at-now)*time.Millisecond)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(max(wait, time.Millisecond))
	}
}

func (e *engine) handle(in inbound) {
	e.phase, e.cur = phaseEvent, in
	switch in.kind {
	case evOpen:
		// Past its address's connection_creation_rate a connection is
		// held unserved for the throttle time, then closed (KIP-612).
		if ms := e.b.ConnectionThrottle(time.Now().UnixMilli(), remoteIP(in.conn.nc)); ms > 0 {
			time.AfterFunc(time.Duration(ms)*time.Millisecond, in.conn.close)
			break
		}
		e.conns[in.conn.id] = in.conn
	case evClose:
		delete(e.conns, in.conn.id)
		e.metrics.closed(in.conn.id)
		e.b.DropConnection(in.conn.id)
	case evRequest:
		if e.conns[in.conn.id] != nil {
			e.phase = phaseRequest
			e.metrics.request(e, in)
			e.traceRequest(in)
			e.b.Handle(time.Now().UnixMilli(), in.req)
		}
		if in.noReply {
			in.conn.held.release(in.size)
		}
	case evCall:
		in.call()
	default:
		e.handleCluster(in)
	}
	e.flush()
	e.cur = inbound{} // hold no request's memory past its handling
}

// call runs fn on the engine goroutine and waits for it; false when the
// server stopped first.
func (e *engine) call(fn func()) bool {
	done := make(chan struct{})
	select {
	case e.in <- inbound{kind: evCall, call: func() { fn(); close(done) }}:
	case <-e.stopping:
		return false
	}
	select {
	case <-done:
		return true
	case <-e.stopping:
		return false
	}
}
