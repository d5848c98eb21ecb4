package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/core/wire"
)

// Message is one request or response in flight.
type Message struct {
	ID       int
	From, To string
	Conn     uint64
	Corr     int32
	ClientID string
	Req      kmsg.Request
	Resp     kmsg.Response
	Due      int64 // not delivered before this virtual time
	// Between brokers (cluster.go): a raft message, a controller request
	// or response (Ctl), and the id of a broker's own request (ReqID).
	Raft  *raftMessage
	Ctl   bool
	ReqID uint64
	quiet bool // not printed (decided when sent: cluster.go visible)
}

func (m *Message) body() any {
	if m.Raft != nil {
		return m.Raft
	}
	if m.Req != nil {
		return m.Req
	}
	return m.Resp
}

func (m *Message) String() string {
	return fmt.Sprintf("#%d %s -> %s  %s", m.ID, m.From, m.To, describe.Message(m.body()))
}

// fault is armed against the next message that matches it.
type fault struct {
	action   string // drop, duplicate, delay
	delay    int64
	response *bool // nil: any; true: responses only; false: requests only
	from, to string
}

func (f *fault) matches(m *Message) bool {
	if f.response != nil && *f.response != (m.Resp != nil) {
		return false
	}
	return (f.from == "" || f.from == m.From) && (f.to == "" || f.to == m.To)
}

func (f *fault) String() string {
	what := "message"
	if f.response != nil {
		what = map[bool]string{true: "response", false: "request"}[*f.response]
	}
	s := fmt.Sprintf("%s the next %s", f.action, what)
	if f.from != "" {
		s += " from " + f.from
	}
	if f.to != "" {
		s += " to " + f.to
	}
	if f.action == "delay" {
		s += fmt.Sprintf(" by %dms", f.delay)
	}
	return s
}

// netActor names the simulated network: the command that lists and holds
// what is in flight, and the speaker of its notes in the output. (A name
// only: the simulator does no I/O; core/purity_test.go checks imports.)
const netActor = "net"

type network struct {
	auto   bool
	queue  []*Message
	nextID int
	faults []*fault
	// cut is one side of a network partition between brokers: messages
	// between a broker in it and a broker outside it are lost. Clients
	// reach both sides.
	cut map[string]bool
	// muted holds a client connection's requests back from a broker
	// until its throttle ends: the broker reads nothing more from a
	// connection it answered with throttle_time_ms (KIP-219), as
	// server/conn.go does.
	muted map[muteKey]int64
}

type muteKey struct {
	broker string
	conn   uint64
}

// mute holds conn's requests to broker, those in flight included, until
// the virtual time until.
func (n *network) mute(broker string, conn uint64, until int64) {
	if n.muted == nil {
		n.muted = map[muteKey]int64{}
	}
	n.muted[muteKey{broker, conn}] = until
	for _, m := range n.queue {
		if m.Req != nil && m.To == broker && m.Conn == conn {
			m.Due = max(m.Due, until)
		}
	}
}

// partitioned reports whether m crosses the partition between brokers.
func (w *World) partitioned(m *Message) bool {
	if len(w.net.cut) == 0 {
		return false
	}
	_, fromErr := w.node(m.From)
	_, toErr := w.node(m.To)
	return fromErr == nil && toErr == nil && w.net.cut[m.From] != w.net.cut[m.To]
}

func (n *network) send(m *Message) {
	if k := (muteKey{m.To, m.Conn}); m.Req != nil && n.muted[k] != 0 {
		if until := n.muted[k]; until > m.Due {
			m.Due = until
		} else {
			delete(n.muted, k)
		}
	}
	n.nextID++
	m.ID = n.nextID
	n.queue = append(n.queue, m)
}

func (n *network) find(id int) int {
	return slices.IndexFunc(n.queue, func(m *Message) bool { return m.ID == id })
}

// nextDue is the earliest due time after now among delayed messages.
func (n *network) nextDue(now int64) (int64, bool) {
	at, ok := int64(0), false
	for _, m := range n.queue {
		if m.Due > now && (!ok || m.Due < at) {
			at, ok = m.Due, true
		}
	}
	return at, ok
}

// settle delivers, in auto mode, every message that is due, including the
// ones their delivery causes, until the network is quiet.
func (w *World) settle() {
	for spins := 0; ; spins++ {
		if spins > 200000 {
			var last []string
			for _, e := range w.events[max(0, len(w.events)-30):] {
				last = append(last, fmt.Sprintf("%s %s->%s %s", e.Kind, e.From, e.To, describe.Message(e.Msg)))
			}
			panic("sim: the network does not settle:\n" + strings.Join(last, "\n"))
		}
		// Traffic between brokers flows even while client messages are
		// held.
		i := slices.IndexFunc(w.net.queue, func(m *Message) bool {
			return m.Due <= w.now && (w.net.auto || m.Raft != nil || m.Ctl || m.ReqID != 0)
		})
		if i < 0 {
			return
		}
		if w.spend(1+weight(w.net.queue[i].body())) != nil {
			return // Exec reports it
		}
		w.deliverAt(i)
	}
}

// deliverAt takes message i off the network, applies any armed fault, and
// hands it to its recipient.
func (w *World) deliverAt(i int) {
	m := w.net.queue[i]
	w.net.queue = slices.Delete(w.net.queue, i, i+1)
	if w.partitioned(m) {
		text := arrow(m.From, m.To) + "(partitioned) " + describe.Message(m.body())
		if m.Raft != nil || m.quiet {
			text = "" // no more printed than its delivery would be (visible)
		}
		w.emit(view.Event{Kind: "drop", From: m.From, To: m.To, Msg: m.body(), Text: text})
		return
	}
	for j, f := range w.net.faults {
		if !f.matches(m) {
			continue
		}
		w.net.faults = slices.Delete(w.net.faults, j, j+1)
		switch f.action {
		case "drop":
			text := arrow(m.From, m.To) + "(dropped) " + describe.Message(m.body())
			if m.Raft != nil {
				text = ""
			}
			w.emit(view.Event{Kind: "drop", From: m.From, To: m.To, Msg: m.body(), Text: text})
			return
		case "delay":
			m.Due = w.now + f.delay
			w.net.queue = append(w.net.queue, m)
			w.emit(view.Event{Kind: "delay", From: m.From, To: m.To, Msg: m.body(), Text: arrow(m.From, m.To) + fmt.Sprintf("(delayed %dms) ", f.delay) + describe.Message(m.body())})
			return
		case "duplicate":
			dup := *m // the copy arrives after whatever is already in flight
			w.net.send(&dup)
			w.emit(view.Event{Kind: "duplicate", From: m.From, To: m.To, Msg: m.body(), Text: arrow(m.From, m.To) + "(duplicated) " + describe.Message(m.body())})
		}
		break
	}
	w.deliver(m)
}

func (w *World) deliver(m *Message) {
	if w.cl != nil && w.deliverInternal(m) {
		return
	}
	if m.Req != nil {
		n, err := w.node(m.To)
		if err != nil || !n.Up {
			text := arrow(m.From, m.To) + "(broker down) " + describe.Message(m.Req)
			if m.quiet {
				text = "" // no more printed than its delivery would be (visible)
			}
			w.emit(view.Event{Kind: "drop", From: m.From, To: m.To, Msg: m.Req, Text: text})
			return
		}
		if !m.quiet {
			w.emit(view.Event{Kind: "deliver", From: m.From, To: m.To, Msg: m.Req, Text: arrow(m.From, m.To) + describe.Message(m.Req)})
		}
		before := observe(n)
		corr := m.Corr
		if m.ReqID != 0 {
			corr = int32(m.ReqID)
		}
		n.Broker.Handle(w.now, broker.Request{
			Conn:   m.Conn,
			Header: wire.Header{Key: m.Req.Key(), Version: m.Req.GetVersion(), CorrelationID: corr, ClientID: m.ClientID},
			Msg:    m.Req,
		})
		w.commit(n)
		w.report(n, before)
		return
	}
	c := w.clients[m.To]
	if c == nil {
		return
	}
	w.emit(view.Event{Kind: "deliver", From: m.From, To: m.To, Msg: m.Resp, Text: arrow(m.From, m.To) + describe.Message(m.Resp)})
	c.receive(w, m)
}

// fromBroker puts a broker's response on the network back to its client.
func (w *World) fromBroker(n *Node, r broker.Response) {
	if r.Conn >= brokerConnBase {
		// The answer to another broker's request (a follower's fetch).
		to := fmt.Sprintf("b%d", r.Conn-brokerConnBase)
		m := &Message{From: n.Name, To: to, Conn: r.Conn, Resp: r.Msg, ReqID: uint64(uint32(r.CorrelationID)), Due: w.now}
		m.quiet = !w.visible(m)
		w.net.send(m)
		return
	}
	to := w.connClient(r.Conn)
	if ms := max(wire.Throttle(r.Msg), r.Throttle); ms > 0 {
		w.net.mute(n.Name, r.Conn, w.now+int64(ms))
	}
	w.net.send(&Message{From: n.Name, To: to, Conn: r.Conn, Corr: r.CorrelationID, Resp: r.Msg, Due: w.now})
}

// connClient maps a connection id back to its client: each client has one
// connection per broker, numbered by the client's creation order.
func (w *World) connClient(conn uint64) string {
	i := int(conn) - 1
	if i < 0 || i >= len(w.order) {
		return "?"
	}
	return w.order[i]
}

func arrow(from, to string) string {
	return fmt.Sprintf("%-13s", from+" -> "+to)
}

// partitionState is what a learner watches change in a partition.
type partitionState struct {
	leo, hw, start int64
}

func observe(n *Node) map[string]partitionState {
	out := map[string]partitionState{}
	for _, t := range n.Broker.Topics() {
		for _, p := range t.Partitions {
			out[p.String()] = partitionState{p.Log().EndOffset(), p.HighWatermark, p.Log().StartOffset()}
		}
	}
	return out
}

// report prints how a request changed the node's partitions.
func (w *World) report(n *Node, before map[string]partitionState) {
	for _, t := range n.Broker.Topics() {
		for _, p := range t.Partitions {
			was, now := before[p.String()], partitionState{p.Log().EndOffset(), p.HighWatermark, p.Log().StartOffset()}
			if now.leo > was.leo {
				w.notef(n.Name, "state", "%s appended offsets %d..%d (leo=%d hw=%d)", p, was.leo, now.leo-1, now.leo, now.hw)
			} else if now.hw != was.hw {
				w.notef(n.Name, "state", "%s high watermark %d -> %d", p, was.hw, now.hw)
			}
			if now.start != was.start {
				w.notef(n.Name, "state", "%s log start offset %d -> %d", p, was.start, now.start)
			}
		}
	}
}
