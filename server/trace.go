package server

import (
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/describe"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/server/live"
)

// traceRequest publishes a client's request to the live trace. It runs on
// the engine goroutine, before the broker handles the request, so a
// request's event always precedes its response's. With nobody watching it
// is one atomic load.
func (e *engine) traceRequest(in inbound) {
	if !e.trace.Watched() {
		return
	}
	h := in.req.Header
	in.conn.clientID = h.ClientID // for the responses (Kafka's carry none)
	msg := live.Named(in.req.Msg, e.topicName)
	if p, ok := msg.(*kmsg.ProduceRequest); ok {
		msg = ownBatches(p)
	}
	e.trace.Publish(&live.Event{
		Time: time.Now(), Conn: in.conn.id, Client: h.ClientID, Remote: in.conn.nc.RemoteAddr().String(),
		Dir: live.Request, Key: h.Key, API: kmsg.NameForKey(h.Key), Version: h.Version, Corr: in.corr,
		Text: describe.Message(msg), Topics: live.Topics(msg, e.topicName), Msg: msg,
	})
}

// traceResponse publishes the broker's response on c to the request the
// client numbered corr.
func (e *engine) traceResponse(c *conn, corr int32, r broker.Response) {
	if !e.trace.Watched() {
		return
	}
	msg := live.Named(r.Msg, e.topicName)
	ev := &live.Event{
		Time: time.Now(), Conn: c.id, Client: c.clientID, Remote: c.nc.RemoteAddr().String(),
		Dir: live.Response, Key: r.Msg.Key(), API: kmsg.NameForKey(r.Msg.Key()), Version: r.Msg.GetVersion(),
		Corr: corr, Text: describe.Message(msg), Topics: live.Topics(msg, e.topicName), Msg: msg,
	}
	e.trace.Publish(ev)
	e.stateStale = e.trace.WantsState()
}

// traceState publishes the broker's state (the partitions' view.Tail,
// which reads the newest batches of each log; the coordinators'
// view.Coordinated, from memory) for a watcher that draws it, once
// responses changed it, at most every live.ViewEvery. The engine calls
// it after each round of requests and on its ticks, so the state after a
// burst of requests follows it within a tick.
func (e *engine) traceState() {
	if !e.trace.WantsState() {
		return
	}
	if e.trace.NewDrawer() {
		e.stateStale = true // a page that just opened draws the state now
	}
	if !e.stateStale || time.Since(e.stateAt) < live.ViewEvery {
		return
	}
	e.stateStale, e.stateAt = false, time.Now()
	gs, ts := view.Coordinated(e.b, live.BrokerName)
	st := &live.Sample{Partitions: view.Tail(e.b), Groups: gs, Txns: ts}
	e.trace.Publish(&live.Event{Time: e.stateAt, Dir: live.State, State: st, Node: e.node})
}

// topicName names a topic by its id (KIP-516), or "" if the broker has no
// such topic.
func (e *engine) topicName(id [16]byte) string {
	for _, t := range e.b.Topics() {
		if t.ID == id {
			return t.Name
		}
	}
	return ""
}

// ownBatches is a copy of a produce request whose batches are its own:
// the request's frame goes back to its pool once it is answered
// (frame_pool.go), and the watchers render the event after that.
func ownBatches(p *kmsg.ProduceRequest) *kmsg.ProduceRequest {
	cp := *p
	cp.Topics = slices.Clone(p.Topics)
	for i := range cp.Topics {
		t := &cp.Topics[i]
		t.Partitions = slices.Clone(t.Partitions)
		for j := range t.Partitions {
			t.Partitions[j].Records = slices.Clone(t.Partitions[j].Records)
		}
	}
	return &cp
}
