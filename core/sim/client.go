package sim

import (
	"fmt"

	"github.com/gregor-kafka/gregor/core/describe"
	"github.com/gregor-kafka/gregor/core/view"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// client is a simulated Kafka client: it sends kmsg requests and reacts to
// responses and to the passing of time.
type client interface {
	receive(w *World, m *Message)
	tick(w *World)
	deadline() (int64, bool)
}

// conn is a client's state shared by every kind: its name, its connection
// number, correlation ids and requests awaiting an answer.
type conn struct {
	name      string
	id        uint64
	corr      int32
	timeoutMs int64
	inflight  map[int32]*outstanding
}

type outstanding struct {
	req    kmsg.Request
	to     string
	sentAt int64
	// timeoutMs overrides the conn's timeout for this request when set
	// (a JoinGroup waits up to rebalance.timeout.ms at the barrier).
	timeoutMs int64
	attempt   int // the producer's attempt number for a Produce
	// retry is called when no answer came within the timeout.
	onTimeout func(w *World)
}

func (c *conn) init(w *World, name string) {
	c.name, c.timeoutMs, c.inflight = name, 30000, map[int32]*outstanding{}
	w.order = append(w.order, name)
	c.id = uint64(len(w.order))
}

// send puts a request on the network to a broker.
func (c *conn) send(w *World, to string, req kmsg.Request, onTimeout func(*World)) int32 {
	c.corr++
	c.inflight[c.corr] = &outstanding{req: req, to: to, sentAt: w.now, onTimeout: onTimeout}
	m := &Message{From: c.name, To: to, Conn: c.id, Corr: c.corr, ClientID: c.name, Req: req, Due: w.now}
	w.net.send(m)
	e := view.Event{Kind: "send", From: c.name, To: to, Msg: req}
	if !w.net.auto {
		e.Text = arrow(c.name, to) + fmt.Sprintf("(in flight #%d) ", m.ID) + describe.Message(req)
	}
	w.emit(e)
	return c.corr
}

// take claims the outstanding request a response answers, or nil for a
// late or duplicated answer the client no longer waits for.
func (c *conn) take(m *Message) *outstanding {
	o := c.inflight[m.Corr]
	delete(c.inflight, m.Corr)
	return o
}

// timeout is how long a request may wait for its answer.
func (c *conn) timeout(o *outstanding) int64 {
	if o.timeoutMs > 0 {
		return o.timeoutMs
	}
	return c.timeoutMs
}

func (c *conn) deadline() (int64, bool) {
	at, ok := int64(0), false
	//purity:unordered takes the earliest deadline
	for _, o := range c.inflight {
		if d := o.sentAt + c.timeout(o); !ok || d < at {
			at, ok = d, true
		}
	}
	return at, ok
}

// expire fires the timeouts of requests that waited too long, in
// correlation order.
func (c *conn) expire(w *World) {
	var late []int32
	for corr, o := range c.inflight {
		if w.now-o.sentAt >= c.timeout(o) {
			late = append(late, corr)
		}
	}
	sortInt32(late)
	for _, corr := range late {
		o := c.inflight[corr]
		delete(c.inflight, corr)
		w.notef(c.name, "note", "no answer to %s after %dms", kmsg.NameForKey(o.req.Key()), c.timeout(o))
		if o.onTimeout != nil {
			o.onTimeout(w)
		}
	}
}

func sortInt32(s []int32) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
