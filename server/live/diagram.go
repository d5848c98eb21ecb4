package live

import (
	"bytes"
	"context"
	"html"
	"net"
	"slices"

	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// BrokerName is the broker's node in the live diagram.
const BrokerName = "broker"

// Recent is one watcher's latest exchanges with the broker, paired
// request with response, as the lessons' views draw a step: each client
// a node of the diagram (named by its client.id and address), each
// exchange its request and response cards. It is fed from the watcher's
// own writer goroutine, never from the broker's request path.
//
// # Invariants
//
//   - A response joins the request of the same connection and
//     correlation id (Kafka answers on the same connection with the
//     request's id); a response whose request was not seen (skipped, or
//     before the watcher came) stands alone.
//   - The view draws the newest Max exchanges; a saved trace holds the
//     newest Keep (TraceKeep when 0). The actors are the clients of those
//     exchanges, in the order they first appear, and the broker.
//   - A client is its client.id at its host: the connections a client
//     opens (bootstrap, its partitions' leader, its coordinator) are one
//     node, whose detail line is the host. Its name is unique: the
//     client.id, with "@host" when another host uses the same client.id.
type Recent struct {
	Max, Keep int
	// Peers is every node's HTTP address (Hub.Peers): the view links a
	// partition to its other replicas' /live pages.
	Peers   map[int32]string
	xs      []*liveExchange // the newest Keep
	pending map[connCorr]*liveExchange
	state   *Sample // the broker's newest (a State event)
	node    int32   // the broker's node.id, from a State event
	start   int64   // ms of the first event: the views' clock starts there
	changed bool
}

type connCorr struct {
	conn uint64
	corr int32
}

type liveExchange struct {
	client, remote string
	key            connCorr
	x              ui.Exchange
	state          *Sample // the broker's after it, as far as known
}

// Add records one event.
func (r *Recent) Add(ev *Event) {
	if r.pending == nil {
		r.pending = map[connCorr]*liveExchange{}
		r.start = ev.Time.UnixMilli()
	}
	r.changed = true
	if ev.Dir == State {
		r.state, r.node = ev.State, ev.Node
		if n := len(r.xs); n > 0 {
			r.xs[n-1].state = r.state // the state after the newest exchange
		}
		return
	}
	k := connCorr{ev.Conn, ev.Corr}
	side := &ui.Side{Time: ev.Time.UnixMilli() - r.start, Msg: ui.Message(ev.Msg)}
	if side.Msg.API == "" {
		side.Msg = ui.MsgView{API: ev.API, Key: ev.Key, Response: ev.Dir == Response, Summary: ev.Text, Describe: ev.Text}
	}
	if ev.Dir == Response {
		if x := r.pending[k]; x != nil {
			delete(r.pending, k)
			x.x.Resp, x.state = side, r.state
			return
		}
		r.push(&liveExchange{client: ev.Client, remote: ev.Remote, key: k, x: ui.Exchange{Resp: side}, state: r.state})
		return
	}
	x := &liveExchange{client: ev.Client, remote: ev.Remote, key: k, x: ui.Exchange{Req: side}, state: r.state}
	r.pending[k] = x
	r.push(x)
}

// TraceKeep is how many exchanges a saved trace holds by default: a few
// minutes of a client's requests, a megabyte or two of JSON.
const TraceKeep = 2000

func (r *Recent) push(x *liveExchange) {
	r.xs = append(r.xs, x)
	keep := r.Keep
	if keep == 0 {
		keep = TraceKeep
	}
	if n := len(r.xs) - max(keep, r.Max, 1); n > 0 {
		for _, old := range r.xs[:n] {
			if r.pending[old.key] == old {
				delete(r.pending, old.key)
			}
		}
		r.xs = append(r.xs[:0:0], r.xs[n:]...)
	}
}

// Changed reports whether an event came since the last View, and
// forgets it.
func (r *Recent) Changed() bool {
	c := r.changed
	r.changed = false
	return c
}

// View is the world and the newest Max exchanges, ready for ui.LiveView:
// the clients named, the messages routed between them and the broker.
func (r *Recent) View() (view.World, []ui.Exchange) {
	var xs []ui.Exchange
	w := walk(r.xs[max(len(r.xs)-max(r.Max, 1), 0):], r.node, func(_ func() view.World, x ui.Exchange) { xs = append(xs, x) })
	return w, xs
}

// Trace is every exchange kept, as the playground steps through it, each
// with the world it happened in.
func (r *Recent) Trace(title string) play.Trace {
	t := play.Trace{Format: play.TraceFormat, Title: title}
	walk(r.xs, r.node, func(w func() view.World, x ui.Exchange) {
		t.Steps = append(t.Steps, play.TraceStep{World: w(), Exchange: x})
	})
	return t
}

// walk names the clients of lxs and calls step with each exchange, routed
// between its client and the broker, and the world so far (the clients
// seen, the broker with its partitions, groups and transactions as they
// were after it); it returns the world after the last.
func walk(lxs []*liveExchange, node int32, step func(world func() view.World, x ui.Exchange)) view.World {
	var clients []view.Actor
	names := map[string]string{} // client.id + host -> node name
	taken := map[string]bool{BrokerName: true}
	var clock int64
	var state *Sample
	world := func() view.World {
		w := view.World{Clock: clock, Brokers: []view.Broker{{ID: node, Name: BrokerName, Up: true}},
			Actors: append(slices.Clone(clients), view.Actor{Name: BrokerName, Kind: view.KindBroker, Up: true})}
		if state != nil {
			w.Brokers[0].Partitions, w.Groups, w.Txns = state.Partitions, state.Groups, state.Txns
		}
		return w
	}
	for _, lx := range lxs {
		host := lx.remote
		if h, _, err := net.SplitHostPort(lx.remote); err == nil {
			host = h
		}
		key := lx.client + "\x00" + host
		name, ok := names[key]
		if !ok {
			name = lx.client
			if name == "" {
				name = "(no client.id)"
			}
			if taken[name] {
				name += " @" + host
			}
			names[key], taken[name] = name, true
			clients = append(clients, view.Actor{Name: name, Kind: view.KindClient, Up: true, Detail: host})
		}
		x := lx.x
		state = lx.state
		if x.Req != nil {
			req := *x.Req
			req.From, req.To, clock = name, BrokerName, req.Time
			x.Req = &req
		}
		if x.Resp != nil {
			resp := *x.Resp
			resp.From, resp.To, clock = BrokerName, name, resp.Time
			x.Resp = &resp
		}
		step(world, x)
	}
	return world()
}

// Render draws the view as HTML: the diagram and the message cards.
func (r *Recent) Render() []byte {
	w, xs := r.View()
	var b bytes.Buffer
	if err := ui.LiveView(w, xs, r.Peers).Render(context.Background(), &b); err != nil {
		return []byte(`<p class="error">` + html.EscapeString(err.Error()) + `</p>`)
	}
	return b.Bytes()
}
