package live

import (
	"bytes"
	"context"
	"html"
	"net"
	"strings"

	"github.com/gregor-kafka/gregor/core/view"
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
//   - At most Max exchanges are kept, the newest; the actors are the
//     clients of those exchanges, in the order they first appear, and the
//     broker.
//   - A client is its client.id at its host: the connections a client
//     opens (bootstrap, its partitions' leader, its coordinator) are one
//     node, whose detail line is the host. Its name is unique: the
//     client.id, with "@host" when another host uses the same client.id.
type Recent struct {
	Max     int
	xs      []*liveExchange
	pending map[connCorr]*liveExchange
	start   int64 // ms of the first event: the views' clock starts there
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
}

// Add records one event.
func (r *Recent) Add(ev *Event) {
	if r.pending == nil {
		r.pending = map[connCorr]*liveExchange{}
		r.start = ev.Time.UnixMilli()
	}
	r.changed = true
	k := connCorr{ev.Conn, ev.Corr}
	side := &ui.Side{Time: ev.Time.UnixMilli() - r.start, Msg: ui.Message(ev.Msg)}
	if side.Msg.API == "" {
		side.Msg = ui.MsgView{API: ev.API, Key: ev.Key, Response: ev.Dir == Response, Summary: ev.Text, Describe: ev.Text}
	}
	nameTopic(&side.Msg, ev.Topics)
	if ev.Dir == Response {
		if x := r.pending[k]; x != nil {
			delete(r.pending, k)
			x.x.Resp = side
			return
		}
		r.push(&liveExchange{client: ev.Client, remote: ev.Remote, key: k, x: ui.Exchange{Resp: side}})
		return
	}
	x := &liveExchange{client: ev.Client, remote: ev.Remote, key: k, x: ui.Exchange{Req: side}}
	r.pending[k] = x
	r.push(x)
}

// nameTopic names the parts of a message that gives its topic by id only
// (Produce v13 and Fetch v13+, KIP-516): the card would read "-0" where
// the publisher resolved the one topic the message names.
func nameTopic(m *ui.MsgView, topics []string) {
	if len(topics) != 1 {
		return
	}
	for i := range m.Parts {
		if strings.HasPrefix(m.Parts[i].Name, "-") {
			m.Parts[i].Name = topics[0] + m.Parts[i].Name
		}
	}
}

func (r *Recent) push(x *liveExchange) {
	r.xs = append(r.xs, x)
	if n := len(r.xs) - max(r.Max, 1); n > 0 {
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

// View is the world and the exchanges, ready for ui.LiveView: the clients
// named, the messages routed between them and the broker.
func (r *Recent) View() (view.World, []ui.Exchange) {
	var w view.World
	names := map[string]string{} // client.id + address -> node name
	taken := map[string]bool{BrokerName: true}
	xs := make([]ui.Exchange, 0, len(r.xs))
	for _, lx := range r.xs {
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
			w.Actors = append(w.Actors, view.Actor{Name: name, Kind: view.KindClient, Up: true, Detail: host})
		}
		x := lx.x
		if x.Req != nil {
			req := *x.Req
			req.From, req.To = name, BrokerName
			x.Req = &req
		}
		if x.Resp != nil {
			resp := *x.Resp
			resp.From, resp.To = BrokerName, name
			x.Resp = &resp
		}
		xs = append(xs, x)
	}
	w.Actors = append(w.Actors, view.Actor{Name: BrokerName, Kind: view.KindBroker, Up: true})
	w.Brokers = []view.Broker{{Name: BrokerName, Up: true}}
	if n := len(r.xs); n > 0 {
		last := r.xs[n-1].x
		if last.Resp != nil {
			w.Clock = last.Resp.Time
		} else if last.Req != nil {
			w.Clock = last.Req.Time
		}
	}
	return w, xs
}

// Render draws the view as HTML: the diagram and the message cards.
func (r *Recent) Render() []byte {
	w, xs := r.View()
	var b bytes.Buffer
	if err := ui.LiveView(w, xs).Render(context.Background(), &b); err != nil {
		return []byte(`<p class="error">` + html.EscapeString(err.Error()) + `</p>`)
	}
	return b.Bytes()
}
