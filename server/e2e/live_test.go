package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// liveEvent is what /live/ws sends, decoded loosely.
type liveEvent struct {
	Type    string   `json:"type"`
	Conn    uint64   `json:"conn"`
	Client  string   `json:"client"`
	Dir     string   `json:"dir"`
	Key     int16    `json:"key"`
	Version int16    `json:"version"`
	API     string   `json:"api"`
	Corr    int32    `json:"corr"`
	Text    string   `json:"text"`
	Topics  []string `json:"topics"`
	Skipped uint64   `json:"skipped"`
	HTML    string   `json:"html"` // a "view"
}

// watcher is a /live/ws client that collects everything it receives.
type watcher struct {
	c    *websocket.Conn
	msgs chan liveEvent
}

func watchLive(t *testing.T, ctx context.Context, b *Broker, clients ...string) *watcher {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws://"+b.HTTPAddr+"/live/ws", nil)
	if err != nil {
		t.Fatalf("dial /live/ws: %v", err)
	}
	c.SetReadLimit(1 << 20)
	t.Cleanup(func() { c.CloseNow() })
	w := &watcher{c: c, msgs: make(chan liveEvent, 1<<16)}
	go func() {
		defer close(w.msgs)
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			var ev liveEvent
			if err := json.Unmarshal(data, &ev); err != nil {
				t.Errorf("/live/ws sent %q: %v", data, err)
			}
			w.msgs <- ev
		}
	}()
	w.nextStatus(t) // the greeting
	filter, _ := json.Marshal(map[string]any{"type": "filter", "filter": map[string]any{"clients": clients}})
	if err := c.Write(ctx, websocket.MessageText, filter); err != nil {
		t.Fatal(err)
	}
	w.nextStatus(t) // the filter is in force
	return w
}

// untilStatus asks for a status and returns the events received before
// it, and the skipped count it reports: every event published before the
// request has then been received.
func (w *watcher) untilStatus(t *testing.T) ([]liveEvent, uint64) {
	t.Helper()
	if err := w.c.Write(context.Background(), websocket.MessageText, []byte(`{"type":"status"}`)); err != nil {
		t.Fatal(err)
	}
	return w.nextStatus(t)
}

// nextStatus reads up to the next status: the events before it, and the
// skipped count it reports.
func (w *watcher) nextStatus(t *testing.T) ([]liveEvent, uint64) {
	t.Helper()
	st, evs := w.until(t, "a status", func(m liveEvent) bool { return m.Type == "status" })
	return evs, st.Skipped
}

// until reads up to the first message that stop accepts (what says what
// it waits for), and returns it with the events received on the way.
func (w *watcher) until(t *testing.T, what string, stop func(liveEvent) bool) (liveEvent, []liveEvent) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []liveEvent
	var lastView string
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				t.Fatal("/live/ws closed")
			}
			if stop(m) {
				return m, evs
			}
			switch m.Type {
			case "event":
				evs = append(evs, m)
			case "view":
				lastView = m.HTML
			}
		case <-ctx.Done():
			t.Fatalf("no %s from /live/ws; the last view:\n%s", what, lastView)
		}
	}
}

// checkConnections checks a client's traced requests: per connection,
// correlation ids count up by one from the first (each request once, in
// order), and every request has exactly one response, after it (these
// clients send no acks=0 produce). It returns the number of requests per API key.
func checkConnections(t *testing.T, who string, evs []liveEvent, firstCorr int32) map[int16]int {
	t.Helper()
	perKey := map[int16]int{}
	next := map[uint64]int32{}
	open := map[uint64]map[int32]bool{}
	lastFetch := map[uint64]bool{}
	for _, ev := range evs {
		switch ev.Dir {
		case "request":
			want, seen := next[ev.Conn]
			if !seen {
				want = firstCorr
			}
			if ev.Corr != want {
				t.Errorf("%s conn %d: request corr %d (%s), want %d", who, ev.Conn, ev.Corr, ev.API, want)
			}
			next[ev.Conn] = ev.Corr + 1
			lastFetch[ev.Conn] = ev.Key == 1
			perKey[ev.Key]++
			if open[ev.Conn] == nil {
				open[ev.Conn] = map[int32]bool{}
			}
			open[ev.Conn][ev.Corr] = true
		case "response":
			if !open[ev.Conn][ev.Corr] {
				t.Errorf("%s conn %d: response %s corr %d without an open request", who, ev.Conn, ev.API, ev.Corr)
			}
			delete(open[ev.Conn], ev.Corr)
		}
		if ev.Text == "" || ev.API == "" {
			t.Errorf("%s: an event without its text or API: %+v", who, ev)
		}
	}
	// A long-polling Fetch may still be waiting when the client closes
	// its connection: only that one may go unanswered.
	for conn, corrs := range open {
		for corr := range corrs {
			if !(lastFetch[conn] && corr == next[conn]-1) {
				t.Errorf("%s conn %d: request corr %d got no response event", who, conn, corr)
			}
		}
	}
	if len(next) == 0 {
		t.Errorf("%s: no request traced", who)
	}
	return perKey
}

// TestLiveWatch: while a /live watcher is connected, a franz-go client
// (and kcat, where installed) produce and consume; every request they
// sent appears once, in order per connection, with its response, and the
// watcher skipped nothing.
func TestLiveWatch(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("num.partitions", "2"))
	ctx := testCtx(t, opTimeout)
	const franzID = "live-franz"
	w := watchLive(t, ctx, b, franzID, "live-kcat")
	topic := topicName(t, "")

	var mu sync.Mutex
	written := map[int16]int{} // requests franz-go wrote, per API key
	hook := writeCounter(func(key int16) { mu.Lock(); written[key]++; mu.Unlock() })
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr), kgo.ClientID(franzID), kgo.WithHooks(hook),
		kgo.AllowAutoTopicCreation(), kgo.DefaultProduceTopic(topic), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	const records = 200
	for i := range records {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "v%d", i)}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	for got := 0; got < records; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("poll: %v", err)
		}
		got += fs.NumRecords()
	}
	cl.Close() // no request is written after Close returns
	evs, skipped := w.untilStatus(t)
	if skipped != 0 {
		t.Errorf("the watcher skipped %d events", skipped)
	}
	var franz []liveEvent
	for _, ev := range evs {
		if ev.Client != franzID {
			t.Errorf("the client filter let through %+v", ev)
		}
		franz = append(franz, ev)
	}
	traced := checkConnections(t, "franz-go", franz, 0)
	mu.Lock()
	for key, n := range written {
		if traced[key] != n {
			t.Errorf("%s: franz-go wrote %d requests, /live traced %d", kmsg.NameForKey(key), n, traced[key])
		}
	}
	mu.Unlock()
	if traced[0] == 0 || traced[1] == 0 {
		t.Errorf("no Produce or no Fetch traced: %v", traced)
	}
	t.Logf("franz-go: %d events over %d API keys, skipped %d", len(franz), len(traced), skipped)

	kcat := requireTool(t, "kcat")
	for _, args := range [][]string{{"-P", "-t", topic}, {"-C", "-t", topic, "-e", "-o", "beginning"}} {
		all := append([]string{"-b", b.Addr, "-X", "client.id=live-kcat", "-X", "socket.timeout.ms=10000"}, args...)
		cmd := exec.CommandContext(ctx, kcat, all...)
		cmd.Stdin = strings.NewReader("one\ntwo\nthree\n")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("kcat %v: %v\n%s", args, err, stderr.String())
		}
	}
	evs, skipped = w.untilStatus(t)
	if skipped != 0 {
		t.Errorf("the watcher skipped %d events", skipped)
	}
	// franz-go's last long-polling Fetch may be answered after the first
	// window ended (its connection closing races the fetch's wait): its
	// response then comes in this window, without its request.
	var kcatEvs []liveEvent
	for _, ev := range evs {
		if ev.Client == "live-kcat" {
			kcatEvs = append(kcatEvs, ev)
		} else if ev.Client != franzID || ev.Dir != "response" || ev.Key != 1 {
			t.Errorf("after franz-go closed, /live traced %+v", ev)
		}
	}
	traced = checkConnections(t, "kcat", kcatEvs, 1) // librdkafka counts from 1
	if traced[0] == 0 || traced[1] == 0 {
		t.Errorf("kcat: no Produce or no Fetch traced: %v", traced)
	}
	t.Logf("kcat: %d events, skipped %d", len(kcatEvs), skipped)
}

// writeCounter is a kgo hook that counts the requests written.
type writeCounter func(key int16)

func (f writeCounter) OnBrokerWrite(_ kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err == nil {
		f(key)
	}
}

// untilView reads until a "view" whose HTML ok accepts (what says what
// it waits for), and returns it with the events received on the way.
func (w *watcher) untilView(t *testing.T, what string, ok func(html string) bool) (string, []liveEvent) {
	t.Helper()
	v, evs := w.until(t, "view with "+what, func(m liveEvent) bool { return m.Type == "view" && ok(m.HTML) })
	return v.HTML, evs
}

// holds is a view predicate: the HTML holds every one of subs.
func holds(subs ...string) func(string) bool {
	return func(html string) bool {
		for _, sub := range subs {
			if !strings.Contains(html, sub) {
				return false
			}
		}
		return true
	}
}

// stableGroup is a view predicate: group id is drawn in the state
// Stable (the state machine's current step) and owns its partitions,
// each with its owner.
func stableGroup(id string, partitions ...string) func(string) bool {
	here := regexp.MustCompile(`class="here"[^>]*>\s*●\s*Stable\s*<`)
	return func(html string) bool {
		_, g, ok := strings.Cut(html, fmt.Sprintf(`data-group="%s"`, id))
		if !ok {
			return false
		}
		g, _, _ = strings.Cut(g, "data-group=") // this group only
		g, _, _ = strings.Cut(g, `class="broker`)
		if !here.MatchString(g) {
			return false
		}
		for _, p := range partitions {
			if !strings.Contains(g, fmt.Sprintf(`data-partition="%s"`, p)) {
				return false
			}
		}
		return true
	}
}

// byIDText matches a partition named by its id's missing name: "-0".
var byIDText = regexp.MustCompile(`(^|[ ;])-\d`)

// TestLiveState: with /live drawing, a transactional producer and a
// consumer in a group (franz-go, which names topics by id in Produce v13
// and Fetch v13+) show on the broker's state panel as the lessons draw
// them: the transaction Ongoing while it is open and CompleteCommit
// after, its batches as cells (open, then committed with its marker),
// the group Stable with its member owning the partitions; and the
// one-line texts name the topic, not "-0".
func TestLiveState(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("num.partitions", "2"))
	ctx := testCtx(t, opTimeout)
	const txnID, groupID = "live-app", "live-shop"
	w := watchLive(t, ctx, b, "live-txn", "live-group")
	if err := w.c.Write(ctx, websocket.MessageText, []byte(`{"type":"diagram"}`)); err != nil {
		t.Fatal(err)
	}
	w.nextStatus(t)
	topic := topicName(t, "")

	pr, err := kgo.NewClient(kgo.SeedBrokers(b.Addr), kgo.ClientID("live-txn"), kgo.TransactionalID(txnID),
		kgo.AllowAutoTopicCreation(), kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if err := pr.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for p := range int32(2) {
		if err := pr.ProduceSync(ctx, &kgo.Record{Partition: p, Value: []byte("v")}).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	open := fmt.Sprintf(`data-txn="%s" data-state="Ongoing"`, txnID)
	_, evs := w.untilView(t, "the transaction Ongoing", holds(open, `<code class="chip">`+topic+`-0</code>`, `<code class="chip">`+topic+`-1</code>`, `data-offset="0" data-kind="open"`))
	if err := pr.EndTransaction(ctx, kgo.TryCommit); err != nil {
		t.Fatal(err)
	}
	_, more := w.untilView(t, "the transaction committed", holds(fmt.Sprintf(`data-txn="%s" data-state="CompleteCommit"`, txnID), `data-offset="0" data-kind="txn"`, `data-offset="1" data-kind="commit"`))
	evs = append(evs, more...)

	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr), kgo.ClientID("live-group"), kgo.ConsumerGroup(groupID),
		kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for got := 0; got < 2; {
		fs := cl.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("poll: %v", err)
		}
		got += fs.NumRecords()
	}
	html, more := w.untilView(t, "the group Stable", stableGroup(groupID, topic+"-0", topic+"-1"))
	evs = append(evs, more...)
	more, _ = w.untilStatus(t)
	evs = append(evs, more...)
	if !strings.Contains(html, `<span class="who">live-group</span>`) {
		t.Errorf("the assignment does not name the member live-group")
	}

	byID := 0 // Fetch v13+ names topics by id only (KIP-516)
	for _, ev := range evs {
		if ev.API != "Produce" && ev.API != "Fetch" {
			continue
		}
		if byIDText.MatchString(ev.Text) {
			t.Errorf("a %s %s names a partition without its topic: %q", ev.API, ev.Dir, ev.Text)
		}
		if ev.API == "Fetch" && ev.Version >= 13 && strings.Contains(ev.Text, topic+"-") {
			byID++
		}
	}
	if byID == 0 {
		t.Errorf("no Fetch v13+ text names %s", topic)
	}
	t.Logf("%d events, %d Fetch v13+ texts name the topic", len(evs), byID)
}

// TestLiveCluster: in a cluster each broker's /live shows its own
// clients' traffic (the Produce requests reach the partition's leader
// only, named by topic though v13 gives its id) and its own copy of a replicated partition, linked to the same
// partition on the other replicas' /live pages (--http-peers).
func TestLiveCluster(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	_, part := createReplicated(t, bs, topic)
	ctx := testCtx(t, opTimeout)
	const client = "live-cluster"
	ws := make([]*watcher, len(bs))
	for i, b := range bs {
		ws[i] = watchLive(t, ctx, b, client)
		if err := ws[i].c.Write(ctx, websocket.MessageText, []byte(`{"type":"diagram"}`)); err != nil {
			t.Fatal(err)
		}
		ws[i].nextStatus(t)
	}
	cl := clusterClient(t, bs, kgo.ClientID(client), kgo.DefaultProduceTopic(topic))
	for i := range 5 {
		if err := cl.ProduceSync(ctx, &kgo.Record{Value: fmt.Appendf(nil, "v%d", i)}).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	for i, b := range bs {
		// A request of the client to each broker: a response there
		// samples that broker's state for its view.
		if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl.Broker(int(b.NodeID))); err != nil {
			t.Fatalf("metadata from node %d: %v", b.NodeID, err)
		}
		want := []string{fmt.Sprintf(`data-follow="%s-0"`, topic), fmt.Sprintf(`<b class="here" title="this broker">%d</b>`, b.NodeID)}
		for _, o := range bs {
			if o != b {
				want = append(want, fmt.Sprintf(`href="http://%s/live?topic=%s#%s-0" data-node="%d"`, o.HTTPAddr, topic, topic, o.NodeID))
			}
		}
		_, evs := ws[i].untilView(t, fmt.Sprintf("node %d's links to the other replicas", b.NodeID), holds(want...))
		more, _ := ws[i].untilStatus(t)
		produced, v13 := 0, 0
		for _, ev := range append(evs, more...) {
			if ev.API == "Produce" && ev.Dir == "request" {
				produced++
				if ev.Version >= 13 {
					v13++
				}
				// Produce v13 names its topic by id only (KIP-516).
				if !strings.HasPrefix(ev.Text, "Produce "+topic+"-0 ") || byIDText.MatchString(ev.Text) {
					t.Errorf("node %d: Produce v%d reads %q", b.NodeID, ev.Version, ev.Text)
				}
			}
		}
		switch leader := b.NodeID == part.Leader; {
		case leader && produced == 0:
			t.Errorf("node %d leads %s-0 but its /live shows no Produce", b.NodeID, topic)
		case !leader && produced > 0:
			t.Errorf("node %d follows %s-0 but its /live shows %d Produce requests", b.NodeID, topic, produced)
		}
		t.Logf("node %d (leader %d): %d events, %d Produce (%d of v13+)", b.NodeID, part.Leader, len(evs)+len(more), produced, v13)
	}
}
