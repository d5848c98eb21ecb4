package live

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons/play"
)

// exchange is a client's request and the broker's response on conn.
func exchange(conn uint64, corr int32, client, remote string, at time.Time) (*Event, *Event) {
	req := kmsg.NewPtrProduceRequest()
	req.Acks = -1
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = "orders"
	rt.Partitions = append(rt.Partitions, kmsg.NewProduceRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	st := kmsg.NewProduceResponseTopic()
	st.Topic = "orders"
	sp := kmsg.NewProduceResponseTopicPartition()
	sp.BaseOffset = int64(corr)
	st.Partitions = append(st.Partitions, sp)
	resp.Topics = append(resp.Topics, st)
	ev := Event{Time: at, Conn: conn, Corr: corr, Client: client, Remote: remote, Key: 0, API: "Produce", Text: "Produce orders-0"}
	in, out := ev, ev
	in.Dir, in.Msg = Request, req
	out.Dir, out.Msg, out.Time = Response, resp, at.Add(time.Millisecond)
	return &in, &out
}

// TestRecent: responses join their requests by connection and
// correlation id; clients are nodes named by client.id, with the address
// where two hosts share one (a client's connections are one node); only
// the newest exchanges stay.
func TestRecent(t *testing.T) {
	t0 := time.Unix(1000, 0)
	r := &Recent{Max: 3}
	a1, a1r := exchange(1, 7, "kgo", "10.0.0.5:4000", t0)
	b1, b1r := exchange(2, 7, "kgo", "10.0.0.6:5000", t0)
	c1, c1r := exchange(3, 1, "rdkafka", "10.0.0.7:6000", t0)
	for _, ev := range []*Event{a1, b1, b1r, a1r, c1} { // answers out of order across connections
		r.Add(ev)
	}
	if !r.Changed() || r.Changed() {
		t.Errorf("Changed does not report, once, that events came")
	}
	w, xs := r.View()
	var names []string
	for _, a := range w.Actors {
		names = append(names, a.Name+"|"+a.Kind+"|"+a.Detail)
	}
	if got, want := strings.Join(names, " "), "kgo|client|10.0.0.5 kgo @10.0.0.6|client|10.0.0.6 rdkafka|client|10.0.0.7 broker|broker|"; got != want {
		t.Errorf("actors %q, want %q", got, want)
	}
	if len(xs) != 3 || xs[0].Resp == nil || xs[0].Resp.Time != 1 || xs[1].Resp == nil || xs[2].Resp != nil {
		t.Fatalf("exchanges not paired by connection and correlation id: %+v", xs)
	}
	if xs[1].Req.From != "kgo @10.0.0.6" || xs[1].Req.To != BrokerName || xs[1].Resp.From != BrokerName || xs[1].Resp.To != "kgo @10.0.0.6" {
		t.Errorf("the second client's exchange runs %s→%s, %s→%s", xs[1].Req.From, xs[1].Req.To, xs[1].Resp.From, xs[1].Resp.To)
	}
	if xs[0].Req.Msg.API != "Produce" || len(xs[0].Req.Msg.Parts) != 1 {
		t.Errorf("the request card: %+v", xs[0].Req.Msg)
	}
	d1, _ := exchange(1, 8, "kgo", "10.0.0.5:4000", t0)
	r.Add(d1) // evicts a1's exchange
	r.Add(c1r)
	if _, xs := r.View(); len(xs) != 3 || xs[1].Resp == nil || xs[2].Resp != nil {
		t.Errorf("after eviction: %d exchanges, rdkafka's answered %v", len(xs), len(xs) > 1 && xs[1].Resp != nil)
	}
	html := string(r.Render())
	for _, want := range []string{`<svg class="dg wide"`, ">rdkafka<", "10.0.0.7<", ">broker<", `class="exchanges"`, "Produce"} {
		if !strings.Contains(html, want) {
			t.Errorf("the view lacks %s", want)
		}
	}
	// The broker's state comes after responses; each exchange keeps the
	// newest known after it.
	e1, e1r := exchange(5, 1, "kgo", "10.0.0.5:4000", t0)
	r.Add(e1)
	r.Add(e1r)
	r.Add(&Event{Dir: State, Node: 3, State: &Sample{
		Partitions: []view.Partition{{Name: "orders-0", LEO: 5, HW: 5, Leader: 3}},
		Groups:     []view.Group{{ID: "shop", Coordinator: BrokerName, Type: "classic", State: "Stable", Generation: 2, Members: []view.Member{{ID: "m-1", Name: "kgo"}}}},
		Txns:       []view.Txn{{ID: "app", Coordinator: BrokerName, State: "Ongoing", ProducerID: 7, Partitions: []string{"orders-0"}}},
	}})
	if w, _ := r.View(); len(w.Brokers) != 1 || w.Brokers[0].ID != 3 || len(w.Brokers[0].Partitions) != 1 || w.Brokers[0].Partitions[0].LEO != 5 ||
		len(w.Groups) != 1 || len(w.Txns) != 1 {
		t.Errorf("the view's broker: %+v, groups %+v, transactions %+v", w.Brokers, w.Groups, w.Txns)
	}
	tr := r.Trace("t")
	if n := len(tr.Steps); tr.Steps[n-1].World.Brokers[0].Partitions == nil || tr.Steps[n-2].World.Brokers[0].Partitions != nil {
		t.Errorf("the trace's steps do not keep the state as it was after each")
	}
	if !(&Filter{Clients: []string{"x"}, APIs: []string{"Fetch"}}).Match(&Event{Dir: State}) {
		t.Errorf("a filter drops the state the view draws")
	}
	html = string(r.Render())
	for _, want := range []string{`data-partition="orders-0"`, `data-group="shop"`, `data-txn="app" data-state="Ongoing"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the view does not draw the broker's state: no %s", want)
		}
	}
}

// TestViewSocket: after {"type":"diagram"} the socket sends views of the
// latest exchanges as events come, before it none; {"type":"save"} is
// answered with the trace of those exchanges.
func TestViewSocket(t *testing.T) {
	var h Hub
	ctx, c := watch(t, &h)
	var views, events int
	read := func(want string) map[string]any {
		t.Helper()
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			json.Unmarshal(data, &m)
			switch m["type"] {
			case "view":
				views++
			case "event":
				events++
			}
			if m["type"] == want {
				return m
			}
		}
	}
	read("status")
	in, out := exchange(1, 1, "kcat", "127.0.0.1:9", time.Now())
	h.Publish(in)
	read("event")
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"diagram"}`))
	read("status")
	if views != 0 {
		t.Errorf("a view came before the watcher asked for it")
	}
	h.Publish(out)
	in2, _ := exchange(1, 2, "kcat", "127.0.0.1:9", time.Now())
	h.Publish(in2)
	v := read("view")
	if html, _ := v["html"].(string); !strings.Contains(html, ">kcat<") || !strings.Contains(html, `class="exchanges"`) {
		t.Errorf("the view does not draw kcat's exchange:\n%s", html)
	}
	if events != 3 {
		t.Errorf("%d events before the view, want 3", events)
	}

	// Save: the exchanges since the diagram was asked for, as the
	// playground reads a trace.
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"save"}`))
	m := read("trace")
	data, _ := json.Marshal(m["trace"])
	tr, err := play.ParseTrace(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Steps) != 2 || tr.Steps[0].Exchange.Req != nil || tr.Steps[0].Exchange.Resp == nil || tr.Steps[1].Exchange.Req.From != "kcat" {
		t.Fatalf("saved trace: %+v", tr.Steps)
	}
	if got := tr.Page(2); got.Step == nil || got.Total != 2 || got.PrevHref != play.TraceHref(1) || len(got.State.Actors) != 2 {
		t.Errorf("the trace's step 2: %+v", got)
	}
}

// TestFollow: in a cluster, each replicated partition links to the same
// partition on its other replicas' /live pages whose HTTP address is
// known; this broker and a replica of unknown address are not links.
func TestFollow(t *testing.T) {
	r := &Recent{Max: 3, Peers: map[int32]string{1: "10.0.0.1:8080", 2: "10.0.0.2:8081"}}
	in, out := exchange(1, 1, "kgo", "10.0.0.5:4000", time.Unix(1000, 0))
	r.Add(in)
	r.Add(out)
	r.Add(&Event{Dir: State, Node: 1, State: &Sample{Partitions: []view.Partition{
		{Name: "orders-0", Leader: 2, Replicas: []int32{2, 1, 3}, ISR: []int32{2, 1, 3}},
		{Name: "__consumer_offsets-0", Leader: 1, Replicas: []int32{1, 2, 3}, Internal: true},
	}}})
	html := string(r.Render())
	for _, want := range []string{
		`data-follow="orders-0"`,
		`href="http://10.0.0.2:8081/live?topic=orders#orders-0" data-node="2"`,
		`<b class="here" title="this broker">1</b>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the view lacks %s", want)
		}
	}
	for _, bad := range []string{`data-node="3"`, `data-node="1"`, `data-follow="__consumer_offsets-0"`} {
		if strings.Contains(html, bad) {
			t.Errorf("the view has %s", bad)
		}
	}
	// A single broker has nothing to follow.
	single := &Recent{Max: 3}
	single.Add(in)
	single.Add(&Event{Dir: State, Node: 1, State: &Sample{Partitions: []view.Partition{{Name: "orders-0", Leader: 1, Replicas: []int32{1}}}}})
	if html := string(single.Render()); strings.Contains(html, `class="follow"`) {
		t.Errorf("a single broker's view offers to follow a partition")
	}
}
