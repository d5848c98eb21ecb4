package live

import (
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/describe"
)

func event(conn uint64, corr int32, client, api string, topics ...string) *Event {
	return &Event{Conn: conn, Corr: corr, Client: client, API: api, Dir: Request, Topics: topics}
}

// TestSlowWatcher: a full buffer drops and counts for that watcher only;
// Publish never blocks; order is kept for what is delivered.
func TestSlowWatcher(t *testing.T) {
	var h Hub
	if h.Watched() {
		t.Fatal("a new hub is watched")
	}
	h.Publish(event(1, 0, "c", "Produce")) // nobody: nothing happens
	slow, fast := h.Watch(2), h.Watch(8)
	if !h.Watched() {
		t.Fatal("a hub with watchers is not watched")
	}
	for i := range int32(5) {
		h.Publish(event(1, i, "c", "Produce"))
	}
	if slow.Skipped() != 3 || fast.Skipped() != 0 {
		t.Errorf("skipped: slow %d, fast %d; want 3 and 0", slow.Skipped(), fast.Skipped())
	}
	for want := range int32(5) {
		if ev := <-fast.Events(); ev.Corr != want {
			t.Fatalf("fast watcher got corr %d, want %d", ev.Corr, want)
		}
	}
	if a, b := <-slow.Events(), <-slow.Events(); a.Corr != 0 || b.Corr != 1 {
		t.Errorf("slow watcher kept corr %d, %d; want the first two", a.Corr, b.Corr)
	}
	if h.NewDrawer() {
		t.Error("a hub nobody draws from reports a new drawer")
	}
	h.DrawState(true)
	if !h.WantsState() || !h.NewDrawer() || h.NewDrawer() {
		t.Error("a watcher that starts drawing is not reported, once, as a new drawer")
	}
	h.DrawState(false)
	h.Unwatch(slow)
	h.Unwatch(fast)
	if h.Watched() {
		t.Error("a hub whose watchers left is still watched")
	}
}

// TestFilterAndPause: a watcher receives only what its filter selects and
// nothing while paused; neither counts as skipped.
func TestFilterAndPause(t *testing.T) {
	var h Hub
	w := h.Watch(16)
	w.SetFilter(&Filter{Clients: []string{"app"}, APIs: []string{"produce", "Fetch"}, Topics: []string{"orders"}})
	for _, ev := range []*Event{
		event(1, 0, "app", "Produce", "orders"),        // yes
		event(1, 1, "other", "Produce", "orders"),      // client
		event(1, 2, "app", "Metadata", "orders"),       // API
		event(1, 3, "app", "Fetch", "audit"),           // topic
		event(1, 4, "app", "Fetch", "audit", "orders"), // yes
	} {
		h.Publish(ev)
	}
	w.SetPaused(true)
	h.Publish(event(1, 5, "app", "Produce", "orders"))
	w.SetPaused(false)
	h.Publish(event(1, 6, "app", "Produce", "orders"))
	var got []int32
	for len(w.Events()) > 0 {
		got = append(got, (<-w.Events()).Corr)
	}
	if !slices.Equal(got, []int32{0, 4, 6}) || w.Skipped() != 0 {
		t.Errorf("got corr %v, skipped %d; want [0 4 6], 0", got, w.Skipped())
	}
	for _, bad := range []Filter{{APIs: []string{"Frobnicate"}}, {Topics: make([]string, maxFilterEntries+1)}} {
		if bad.Validate() == nil {
			t.Errorf("filter %+v is accepted", bad)
		}
	}
}

// TestTopics: topics by name at any depth, by id through the resolver,
// each once.
func TestTopics(t *testing.T) {
	id := [16]byte{1}
	fetch := kmsg.NewPtrFetchRequest()
	for _, name := range []string{"a", "b", "a"} {
		ft := kmsg.NewFetchRequestTopic()
		ft.Topic = name
		fetch.Topics = append(fetch.Topics, ft)
	}
	ft := kmsg.NewFetchRequestTopic()
	ft.TopicID = id
	fetch.Topics = append(fetch.Topics, ft)
	byID := func(x [16]byte) string {
		if x == id {
			return "by-id"
		}
		return ""
	}
	if got := Topics(fetch, byID); !slices.Equal(got, []string{"a", "b", "by-id"}) {
		t.Errorf("Fetch topics: %v", got)
	}
	commit := kmsg.NewPtrOffsetCommitRequest()
	ct := kmsg.NewOffsetCommitRequestTopic()
	ct.Topic = "orders"
	commit.Topics = append(commit.Topics, ct)
	if got := Topics(commit, nil); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("OffsetCommit topics: %v", got)
	}
	if got := Topics(kmsg.NewPtrApiVersionsRequest(), nil); len(got) != 0 {
		t.Errorf("ApiVersions names topics: %v", got)
	}
}

// TestNamed: a topic given by id only is named in a copy, for the text
// and the cards; the message itself stays as the client sent it.
func TestNamed(t *testing.T) {
	id := [16]byte{9}
	byID := func(x [16]byte) string {
		if x == id {
			return "orders"
		}
		return ""
	}
	req := kmsg.NewPtrProduceRequest()
	req.Version = 13
	rt := kmsg.NewProduceRequestTopic()
	rt.TopicID = id
	rt.Partitions = append(rt.Partitions, kmsg.NewProduceRequestTopicPartition())
	req.Topics = append(req.Topics, rt)
	named, ok := Named(req, byID).(*kmsg.ProduceRequest)
	if !ok || named == req || named.Topics[0].Topic != "orders" || req.Topics[0].Topic != "" {
		t.Fatalf("Named(Produce v13): %+v; the original's topic %q", named, req.Topics[0].Topic)
	}
	if got := describe.Message(named); !strings.HasPrefix(got, "Produce orders-0 ") {
		t.Errorf("the text of a named Produce v13: %q", got)
	}
	resp := kmsg.NewPtrFetchResponse()
	rt2 := kmsg.NewFetchResponseTopic()
	rt2.TopicID = [16]byte{8} // unknown: left as it is
	resp.Topics = append(resp.Topics, rt2)
	if Named(resp, byID) != any(resp) {
		t.Errorf("a message whose topics the broker does not know is copied")
	}
	byName := kmsg.NewPtrFetchRequest()
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic, ft.TopicID = "audit", id
	byName.Topics = append(byName.Topics, ft)
	if Named(byName, byID) != any(byName) || Named(kmsg.NewPtrApiVersionsRequest(), byID) == nil {
		t.Errorf("a message that names its topics is copied")
	}
}

// BenchmarkPublish is the hook's cost per request: with nobody watching
// (one atomic load, no Event) and with one watcher that keeps up.
func BenchmarkPublish(b *testing.B) {
	msg := kmsg.NewPtrProduceRequest()
	b.Run("no-watcher", func(b *testing.B) {
		var h Hub
		for b.Loop() {
			if h.Watched() {
				h.Publish(&Event{Msg: msg})
			}
		}
	})
	b.Run("one-watcher", func(b *testing.B) {
		var h Hub
		w := h.Watch(1024)
		for b.Loop() {
			if h.Watched() {
				h.Publish(&Event{Msg: msg, Topics: Topics(msg, nil)})
			}
			<-w.Events()
		}
	})
}
