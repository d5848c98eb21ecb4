package server

import (
	"context"
	"errors"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/wire"
	"github.com/gregor-kafka/gregor/server/console"
)

// consoleConnBase numbers the pseudo connections on which the broker
// serves the console's requests (package server/console): one connection
// per request, consoleConnBase + a sequence number, below peerConnBase.
const consoleConnBase = 1 << 61

// consoleClientID is the client.id of the console's requests, as the live
// trace and the quotas see it.
const consoleClientID = "gregor-console"

// errStopped: the server stopped before the engine answered.
var errStopped = errors.New("the broker is stopping")

// consoleAsks is what the engine remembers of the console's requests: the
// waiter of each one not yet answered. The engine goroutine alone reads
// and writes it.
type consoleAsks struct {
	seq     uint64
	waiting map[uint64]chan<- kmsg.Response
}

// consoleEngine is the console's way into the engine (console.Engine):
// each request is served as principal's, on a connection of its own, as a
// client's would be, ACLs and quotas included.
type consoleEngine struct {
	e         *engine
	principal string
}

// Ask hands req to the broker and waits for its answer, or for ctx. The
// request is sent at the highest version the broker serves, and no
// higher than the version req carries when that is not 0 (a Fetch that
// names its topics rather than their ids).
func (c consoleEngine) Ask(ctx context.Context, req kmsg.Request) (kmsg.Response, error) {
	v := servedVersion(req)
	if most := req.GetVersion(); most > 0 {
		v = min(v, most)
	}
	req.SetVersion(v)
	e := c.e
	ch := make(chan kmsg.Response, 1)
	var conn uint64
	if !e.call(func() {
		e.asks.seq++
		conn = consoleConnBase + e.asks.seq
		if e.asks.waiting == nil {
			e.asks.waiting = map[uint64]chan<- kmsg.Response{}
		}
		e.asks.waiting[conn] = ch
		e.b.Handle(time.Now().UnixMilli(), broker.Request{Conn: conn, Msg: req, Host: "/" + console.Host, Principal: c.principal,
			Header: wire.Header{Key: req.Key(), Version: req.GetVersion(), ClientID: consoleClientID}})
	}) {
		return nil, errStopped
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		e.call(func() { e.forgetAsk(conn) })
		return nil, ctx.Err()
	case <-e.stopping:
		return nil, errStopped
	}
}

// Snapshot runs fn on the engine goroutine, between two requests; fn must
// only read the broker, and only a bounded part of it.
func (c consoleEngine) Snapshot(fn func(b *broker.Broker)) error {
	if !c.e.call(func() { fn(c.e.b) }) {
		return errStopped
	}
	return nil
}

// Node is this broker's node.id.
func (c consoleEngine) Node() int32 { return c.e.node }

// console is the operator's console on this broker, acting as
// ConsolePrincipal (User:ANONYMOUS when none is set).
func (s *Server) console() *console.Console {
	principal := s.cfg.ConsolePrincipal
	if principal == "" {
		principal = "User:ANONYMOUS"
	}
	c := &console.Console{Engine: consoleEngine{e: s.e, principal: principal}, Peers: s.cfg.HTTPPeers}
	if s.cfg.Authorizer != nil {
		c.Principal = principal
	}
	return c
}

// answerConsole hands the broker's answer on a console connection to its
// waiter, and closes that connection.
func (e *engine) answerConsole(r broker.Response) {
	if ch, ok := e.asks.waiting[r.Conn]; ok {
		ch <- r.Msg
	}
	e.forgetAsk(r.Conn) // safe: flush runs this outside any broker call
}

// forgetAsk drops a console connection: its waiter, and what the broker
// holds for it.
func (e *engine) forgetAsk(conn uint64) {
	delete(e.asks.waiting, conn)
	e.b.DropConnection(conn)
}

// servedVersion is the highest version of req's API that both kmsg and the
// broker know.
func servedVersion(req kmsg.Request) int16 {
	for v := req.MaxVersion(); v > 0; v-- {
		if broker.Serves(req.Key(), v) {
			return v
		}
	}
	return 0
}
