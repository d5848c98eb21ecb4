package broker

import (
	"cmp"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/wire"
)

// wired is brokers of one cluster that send each other what they send
// (Ready) as bytes: every request and answer between them is encoded and
// decoded again, as on a socket. The controller is nobody: what is sent
// to it is dropped.
type wired struct {
	t      *testing.T
	now    int64
	nodes  map[int32]*Broker
	stores map[int32]*store.Mem
	image  *cluster.Image
	queue  []wiredMsg
	// waiting are the requests delivered and not answered yet.
	waiting map[link]bool
	// fetches are the Fetch exchanges between brokers, as decoded from
	// their bytes, in the order the requests were sent.
	fetches []*fetchExchange
}

// link names one request between brokers.
type link struct {
	from, to int32
	id       uint64
}

type wiredMsg struct {
	from, to int32
	id       uint64
	req      []byte // a request's bytes; else resp is an answer
	key      int16
	version  int16
	resp     kmsg.Response
}

type fetchExchange struct {
	from, to  int32
	req       *kmsg.FetchRequest
	reqBytes  int
	resp      *kmsg.FetchResponse
	respBytes int
}

// peerConn is the connection broker id's requests arrive on.
func peerConn(id int32) uint64 { return 1<<62 + uint64(id) }

func newWired(t *testing.T, ids ...int32) *wired {
	w := &wired{t: t, now: 1000, nodes: map[int32]*Broker{}, stores: map[int32]*store.Mem{}, image: cluster.NewImage(), waiting: map[link]bool{}}
	w.image.ClusterID = "wired"
	for _, id := range ids {
		w.image.Brokers[id] = &cluster.Broker{ID: id, Epoch: 1, Host: "h", Port: 9000 + id}
		w.stores[id] = store.NewMem()
		w.start(id)
	}
	w.apply()
	return w
}

// start (re)starts broker id on its storage.
func (w *wired) start(id int32) {
	cfg := Config{NodeID: id, Settings: config.NewBroker(), Rand: rand.New(rand.NewPCG(uint64(id), 2)), Logf: w.t.Logf,
		Cluster: &ClusterConfig{}}
	b, err := New(cfg, w.stores[id], w.now)
	if err != nil {
		w.t.Fatal(err)
	}
	w.nodes[id] = b
}

// topic adds a topic whose partition i has replicas[i], its first the
// leader, all in sync.
func (w *wired) topic(name string, replicas ...[]int32) {
	tp := &cluster.Topic{Name: name, ID: cluster.UUID{byte(len(w.image.Topics) + 1)}}
	for _, r := range replicas {
		tp.Partitions = append(tp.Partitions, &cluster.Partition{Replicas: r, ISR: slices.Clone(r), Leader: r[0]})
	}
	w.image.Topics[name] = tp
}

// apply hands every broker the image and carries out what follows. A
// broker that is not registered yet registers (it adopts the cluster id
// from the image first) and is handed the image again, as the controller
// would publish its registration.
func (w *wired) apply() {
	for again := true; again; {
		again = false
		for _, id := range w.ids() {
			b := w.nodes[id]
			if err := b.ApplyMetadata(w.now, w.image); err != nil {
				w.t.Fatal(err)
			}
			if b.cl.epoch < 0 {
				b.Tick(w.now)
				again = true
			}
			w.carry(id)
		}
		w.settle()
	}
}

func (w *wired) ids() []int32 {
	var ids []int32
	for id := range w.nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// carry syncs broker id's appends and queues what it produced.
func (w *wired) carry(id int32) {
	b := w.nodes[id]
	if err := b.Commit(); err != nil {
		w.t.Fatal(err)
	}
	for _, e := range b.Ready().Effects {
		switch {
		case e.Send.Req != nil && e.Send.To == ToController:
			w.control(id, e.Send)
		case e.Send.Req != nil:
			req := e.Send.Req
			w.queue = append(w.queue, wiredMsg{from: id, to: e.Send.To, id: e.Send.ID, req: req.AppendTo(nil), key: req.Key(), version: req.GetVersion()})
		case e.Response.Conn >= peerConn(0):
			w.queue = append(w.queue, wiredMsg{from: id, to: int32(e.Response.Conn - peerConn(0)), id: uint64(uint32(e.Response.CorrelationID)), resp: e.Response.Msg})
		}
	}
}

// settleUntil delivers what is queued until the next message is one
// stop picks, which stays queued.
func (w *wired) settleUntil(stop func(wiredMsg) bool) {
	for len(w.queue) > 0 && !stop(w.queue[0]) {
		w.deliverNext()
	}
	if len(w.queue) == 0 {
		w.t.Fatalf("nothing queued is what the test waits for")
	}
}

// restart restarts broker id on its storage. What the others asked it
// and it had not answered is lost with its links, and they are told at
// once, as the server fails a broken link's requests (server/cluster.go).
func (w *wired) restart(id int32) {
	w.start(id)
	kept := w.queue[:0]
	for _, m := range w.queue {
		if m.req != nil || m.to != id { // answers to the old incarnation are lost
			kept = append(kept, m)
		}
	}
	w.queue = kept
	for _, k := range slices.SortedFunc(maps.Keys(w.waiting), func(a, b link) int { return cmp.Compare(a.id, b.id) }) {
		if k.to == id {
			delete(w.waiting, k)
			w.nodes[k.from].Receive(w.now, k.id, nil)
			w.carry(k.from)
		}
	}
	w.apply()
}

// control answers what a broker asks the controller: its registration
// gets the epoch the image gives it, a heartbeat says it is unfenced, and
// the rest (AlterPartition) is lost.
func (w *wired) control(id int32, s Send) {
	var resp kmsg.Response
	switch s.Req.(type) {
	case *kmsg.BrokerRegistrationRequest:
		r := kmsg.NewPtrBrokerRegistrationResponse()
		r.BrokerEpoch = w.image.Brokers[id].Epoch
		resp = r
	case *kmsg.BrokerHeartbeatRequest:
		resp = kmsg.NewPtrBrokerHeartbeatResponse()
	default:
		return
	}
	resp.SetVersion(s.Req.GetVersion())
	w.queue = append(w.queue, wiredMsg{from: ToController, to: id, id: s.ID, resp: resp})
}

// settle delivers what is queued, and what that produces, until nothing
// is left.
func (w *wired) settle() {
	for i := 0; len(w.queue) > 0; i++ {
		if i == 10_000 {
			w.t.Fatalf("the brokers do not settle at %d ms: they answer each other at once, forever", w.now)
		}
		w.deliverNext()
	}
}

func (w *wired) deliverNext() {
	m := w.queue[0]
	w.queue = w.queue[1:]
	if m.req != nil {
		w.deliverRequest(m)
	} else {
		w.deliverAnswer(m)
	}
}

func (w *wired) deliverRequest(m wiredMsg) {
	req := kmsg.RequestForKey(m.key)
	req.SetVersion(m.version)
	if err := req.ReadFrom(m.req); err != nil {
		w.t.Fatalf("b%d's %s to b%d does not decode: %v", m.from, kmsg.NameForKey(m.key), m.to, err)
	}
	if f, ok := req.(*kmsg.FetchRequest); ok {
		w.fetches = append(w.fetches, &fetchExchange{from: m.from, to: m.to, req: f, reqBytes: len(m.req)})
	}
	w.waiting[link{m.from, m.to, m.id}] = true
	b := w.nodes[m.to]
	b.Handle(w.now, Request{Conn: peerConn(m.from), Header: wire.Header{Key: m.key, Version: m.version, CorrelationID: int32(m.id)}, Msg: req})
	w.carry(m.to)
}

func (w *wired) deliverAnswer(m wiredMsg) {
	delete(w.waiting, link{m.to, m.from, m.id})
	raw := m.resp.AppendTo(nil)
	fresh := kmsg.ResponseForKey(m.resp.Key())
	fresh.SetVersion(m.resp.GetVersion())
	if err := fresh.ReadFrom(raw); err != nil {
		w.t.Fatalf("b%d's answer to b%d does not decode: %v", m.from, m.to, err)
	}
	if f, ok := fresh.(*kmsg.FetchResponse); ok {
		for i := len(w.fetches) - 1; i >= 0; i-- {
			if x := w.fetches[i]; x.from == m.to && x.to == m.from && x.resp == nil {
				x.resp, x.respBytes = f, len(raw)
				break
			}
		}
	}
	w.nodes[m.to].Receive(w.now, m.id, fresh)
	w.carry(m.to)
}

// advance moves time on by ms, ticking the brokers at each deadline (a
// deadline still due right after a tick would spin a driver: it fails).
func (w *wired) advance(ms int64) {
	end := w.now + ms
	for ticked := int64(-1); ; {
		next := end
		for _, id := range w.ids() {
			if at, ok := w.nodes[id].NextDeadline(); ok && at < next {
				next = max(at, w.now)
			}
		}
		if next == ticked {
			w.t.Fatalf("a deadline at %d is still due after the tick at %d", next, ticked)
		}
		w.now, ticked = next, next
		for _, id := range w.ids() {
			w.nodes[id].Tick(w.now)
			w.carry(id)
		}
		w.settle()
		if w.now >= end {
			return
		}
	}
}

// produce appends values to topic's partition at its leader.
func (w *wired) produce(leader int32, topic string, partition int32, values ...string) {
	w.nodes[leader].Handle(w.now, produceAt(topic, partition, values...))
	w.carry(leader)
	w.settle()
}

// produceAt is a client's Produce of values, acks=1.
func produceAt(topic string, partition int32, values ...string) Request {
	req := produceReq(topic, partition, 1, batchOf(values...))
	return Request{Conn: 1, Header: wire.Header{Key: req.Key(), Version: req.GetVersion(), CorrelationID: 1}, Msg: req}
}

// since is the fetches sent from one broker to another after the first n.
func (w *wired) since(n int, from, to int32) []*fetchExchange {
	var out []*fetchExchange
	for _, x := range w.fetches[n:] {
		if x.from == from && x.to == to {
			out = append(out, x)
		}
	}
	return out
}

// named lists a fetch request's partitions as topic-partition.
func named(req *kmsg.FetchRequest) []string {
	var out []string
	for _, rt := range req.Topics {
		for _, rp := range rt.Partitions {
			out = append(out, fmt.Sprintf("%s-%d", rt.Topic, rp.Partition))
		}
	}
	return out
}

// TestFollowerFetchSession: a follower sends one Fetch per leader with
// every partition it follows there, in a fetch session (KIP-227). Once it
// has caught up its fetches carry no partition at all, and the answer to
// one names only the partition that got records; a partition it stops
// following is forgotten; and a leader that restarted has lost the
// session: FETCH_SESSION_ID_NOT_FOUND, then a full fetch opens a new one.
func TestFollowerFetchSession(t *testing.T) {
	w := newWired(t, 1, 2)
	w.topic("orders", []int32{1, 2}, []int32{1, 2}, []int32{1, 2})
	w.topic("clicks", []int32{2, 1})
	w.apply()

	from1 := w.since(0, 2, 1)
	if len(from1) != 1 || !slices.Equal(named(from1[0].req), []string{"orders-0", "orders-1", "orders-2"}) {
		t.Fatalf("b2's fetches from b1 after the image: %d, the first naming %v; want one naming orders-0..2", len(from1), named(from1[0].req))
	}
	if f := w.since(0, 1, 2); len(f) != 1 || !slices.Equal(named(f[0].req), []string{"clicks-0"}) {
		t.Fatalf("b1's fetches from b2: %d, want one naming clicks-0", len(f))
	}
	// Caught up and idle: each long poll that times out is followed by
	// one that names nothing.
	w.advance(1200)
	open := from1[0]
	if open.req.SessionID != 0 || open.req.SessionEpoch != 0 || open.resp == nil || open.resp.SessionID == 0 {
		t.Fatalf("opening fetch: session %d epoch %d, answer %+v; want 0, 0 and a session id", open.req.SessionID, open.req.SessionEpoch, open.resp)
	}
	session := open.resp.SessionID
	idle := w.since(0, 2, 1)[1:]
	if len(idle) < 2 {
		t.Fatalf("%d fetches from b2 in 1.2 s idle, want long polls of 500 ms", len(idle))
	}
	for i, x := range idle {
		if x.req.SessionID != session || x.req.SessionEpoch != int32(i+1) || len(x.req.Topics) != 0 || len(x.req.ForgottenTopics) != 0 {
			t.Fatalf("idle fetch %d: session %d epoch %d, %d topics, %d forgotten; want session %d epoch %d naming nothing",
				i, x.req.SessionID, x.req.SessionEpoch, len(x.req.Topics), len(x.req.ForgottenTopics), session, i+1)
		}
		if x.resp != nil && len(x.resp.Topics) != 0 {
			t.Fatalf("idle fetch %d answered with %s's partitions %v, want no partition", i, x.resp.Topics[0].Topic, partsOf(x.resp))
		}
	}
	if idle[0].reqBytes >= open.reqBytes/2 {
		t.Errorf("an incremental fetch is %d bytes, the full one %d", idle[0].reqBytes, open.reqBytes)
	}

	// A record on orders-1: the waiting fetch is answered with orders-1
	// alone, and the next fetch names orders-1 alone, at its new offset.
	waiting := idle[len(idle)-1]
	if waiting.resp != nil {
		t.Fatalf("b2's last fetch was answered already")
	}
	n := len(w.fetches)
	w.produce(1, "orders", 1, "a")
	w.advance(100)
	got := w.since(n, 2, 1)
	if waiting.resp == nil || len(got) == 0 {
		t.Fatalf("after the produce: the waiting fetch answered %v, %d fetches from b2 since", waiting.resp != nil, len(got))
	}
	if rs := waiting.resp.Topics; len(rs) != 1 || rs[0].Topic != "orders" || !slices.Equal(partsOf(waiting.resp), []int32{1}) || len(rs[0].Partitions[0].RecordBatches) == 0 {
		t.Fatalf("the answer with the record: %+v, want orders-1 alone, with its batch", rs)
	}
	next := got[0].req
	if nm := named(next); !slices.Equal(nm, []string{"orders-1"}) || next.Topics[0].Partitions[0].FetchOffset != 1 {
		t.Fatalf("the fetch after the record names %v, want orders-1 at offset 1", nm)
	}
	if hw := w.nodes[1].Topic("orders").Partitions[1].HighWatermark; hw != 1 {
		t.Errorf("orders-1's high watermark at b1: %d, want 1 (the follower's offset counts from the session)", hw)
	}

	// b2 takes orders-2's leadership: b2's next fetch from b1 forgets it.
	n = len(w.fetches)
	p2 := w.image.Topics["orders"].Partitions[2]
	p2.Replicas, p2.ISR, p2.Leader, p2.LeaderEpoch = []int32{2, 1}, []int32{2, 1}, 2, 1
	w.apply()
	w.advance(600)
	forgot := false
	for _, x := range w.since(n, 2, 1) {
		for _, ft := range x.req.ForgottenTopics {
			if ft.Topic == "orders" && slices.Equal(ft.Partitions, []int32{2}) && len(x.req.Topics) == 0 {
				forgot = true
			}
		}
		if slices.Contains(named(x.req), "orders-2") {
			t.Fatalf("b2 fetched orders-2, which it leads, from b1")
		}
	}
	if !forgot {
		t.Fatalf("no fetch from b2 forgot orders-2 alone")
	}

	// b1 restarts between two of b2's fetches: the next one names a
	// session b1 no longer has.
	w.nodes[1].Handle(w.now, produceAt("orders", 0, "b"))
	w.carry(1)
	w.settleUntil(func(m wiredMsg) bool { return m.req != nil && m.from == 2 && m.to == 1 })
	n = len(w.fetches)
	w.restart(1)
	w.advance(1000)
	after := w.since(n, 2, 1)
	if len(after) < 2 || after[0].resp == nil || after[0].resp.ErrorCode != kerr.FetchSessionIDNotFound.Code || after[0].req.SessionEpoch == 0 {
		t.Fatalf("b2's first fetch from the restarted b1: %+v, want an incremental one answered FETCH_SESSION_ID_NOT_FOUND", after)
	}
	if r := after[1].req; r.SessionID != 0 || r.SessionEpoch != 0 || !slices.Equal(named(r), []string{"orders-0", "orders-1"}) {
		t.Fatalf("the fetch after the session error: session %d epoch %d naming %v, want a full fetch of orders-0 and orders-1", r.SessionID, r.SessionEpoch, named(r))
	}

	// b1 restarts while b2's fetch waits there: the broken link fails
	// it, and b2 opens a new session at once, without a session error.
	held := w.since(0, 2, 1)
	if last := held[len(held)-1]; last.resp != nil || last.req.SessionEpoch == 0 {
		t.Fatalf("b2 has no incremental fetch waiting at b1")
	}
	n = len(w.fetches)
	w.restart(1)
	w.advance(1000)
	after = w.since(n, 2, 1)
	if len(after) == 0 || after[0].req.SessionEpoch != 0 || after[0].resp == nil || after[0].resp.ErrorCode != 0 {
		t.Fatalf("b2's first fetch after its waiting one was lost: %+v, want a full fetch, answered", after)
	}
}
