package ui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/gregor-kafka/gregor/core/view"
)

// drawn renders the diagram of the last step of cmds and parses it.
func drawn(t *testing.T, cmds ...string) (*html.Node, view.World, []Exchange, string) {
	t.Helper()
	w, step := world(t, cmds...)
	st := w.View()
	xs := Exchanges(w.Events(), step)
	var sb strings.Builder
	if err := DiagramView(NewDiagram(st, xs, "")).Render(context.Background(), &sb); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(strings.NewReader(sb.String()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, st, xs, sb.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	for _, f := range strings.Fields(attr(n, "class")) {
		if f == c {
			return true
		}
	}
	return false
}

// find lists the elements under n with class c, depth first.
func find(n *html.Node, c string) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && hasClass(n, c) {
			out = append(out, n)
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			walk(k)
		}
	}
	walk(n)
	return out
}

func text(n *html.Node) string {
	var sb strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			sb.WriteString(n.Data)
		}
		for k := n.FirstChild; k != nil; k = k.NextSibling {
			walk(k)
		}
	}
	walk(n)
	return sb.String()
}

// sides counts the messages of a step, each request and each response.
func sides(xs []Exchange) int {
	n := 0
	for _, x := range xs {
		if x.Req != nil {
			n++
		}
		if x.Resp != nil {
			n++
		}
	}
	return n
}

func TestDiagramNodePerActorArrowPerMessage(t *testing.T) {
	doc, st, xs, _ := drawn(t, "broker", "topic t partitions=1", "producer p1 acks=1", "consumer c1",
		"produce p1 t partition=0 value=a", "fetch c1 t-0 offset=0")
	if len(st.Actors) != 4 { // admin, p1, c1, b0
		t.Fatalf("actors: %+v", st.Actors)
	}
	for _, svg := range find(doc, "dg") {
		nodes := find(svg, "node")
		if len(nodes) != len(st.Actors) {
			t.Errorf("%s: %d nodes, want one per actor (%d)", attr(svg, "class"), len(nodes), len(st.Actors))
		}
		for i, a := range st.Actors {
			if i < len(nodes) && attr(nodes[i], "data-actor") != a.Name {
				t.Errorf("node %d is %q, want %q", i, attr(nodes[i], "data-actor"), a.Name)
			}
		}
		msgs := find(svg, "msg")
		if len(msgs) != sides(xs) || len(msgs) != 2 { // no repeats here: one arrow each
			t.Fatalf("%s: %d arrows, want one per message of the step (%d)", attr(svg, "class"), len(msgs), sides(xs))
		}
		if attr(msgs[0], "data-from") != "c1" || attr(msgs[0], "data-to") != "b0" || attr(msgs[1], "data-from") != "b0" {
			t.Errorf("arrows run %s→%s, %s→%s", attr(msgs[0], "data-from"), attr(msgs[0], "data-to"), attr(msgs[1], "data-from"), attr(msgs[1], "data-to"))
		}
	}
	wide := find(doc, "wide")[0]
	if got := text(find(wide, "lbl")[0]); !strings.Contains(got, "Fetch t-0 offset=0") {
		t.Errorf("fetch label %q", got)
	}
	// One leader for the partition in focus, the one the messages name.
	if got := text(find(wide, "lead")[0]); got != "★ leader t-0 e0" {
		t.Errorf("leader role %q", got)
	}
}

// fateOf renders the step and returns the classes and label texts of
// its arrows in the wide layout.
func fateOf(t *testing.T, cmds ...string) ([]*html.Node, string) {
	t.Helper()
	doc, _, _, raw := drawn(t, cmds...)
	return find(find(doc, "wide")[0], "msg"), raw
}

func TestDiagramMarksFaults(t *testing.T) {
	cases := []struct {
		fault, class, words string
		glyph               string // a shape that is not colour
		want                int    // arrows so marked
	}{
		{"fault drop response", "dropped", "dropped", `class="ghost"`, 1},
		// the duplicated request, and its copy arriving after it
		{"fault duplicate request", "duplicated", "duplicated", `class="wire twin"`, 2},
		{"fault delay=5s response", "delayed", "delayed 5000ms", `class="hands"`, 1},
	}
	for _, c := range cases {
		msgs, raw := fateOf(t, append(setup, c.fault, "produce p1 t partition=0 value=a")...)
		var marked []*html.Node
		for _, m := range msgs {
			if hasClass(m, c.class) {
				marked = append(marked, m)
			}
		}
		if len(marked) != c.want {
			t.Errorf("%s: %d arrows marked %s, want %d", c.fault, len(marked), c.class, c.want)
			continue
		}
		if got := text(find(marked[0], "mk")[0]); !strings.Contains(got, c.words) {
			t.Errorf("%s: mark reads %q, want %q", c.fault, got, c.words)
		}
		if !strings.Contains(raw, c.glyph) || len(find(marked[0], "glyph")) != 1 || len(find(marked[0], "dot")) == 0 {
			t.Errorf("%s: no %s and glyph on the arrow", c.fault, c.glyph)
		}
	}
	// A message sent to a crashed broker is lost there, with a cross.
	msgs, _ := fateOf(t, append(setup, "crash b0", "produce p1 t partition=0 value=a")...)
	if len(msgs) == 0 || !hasClass(msgs[0], "down") || len(find(msgs[0], "x")) != 1 {
		t.Errorf("lost to a crashed broker: %d arrows, first %q", len(msgs), attr(msgs[0], "class"))
	}
	// A held message waits on the wire, dashed, with a pause sign.
	msgs, _ = fateOf(t, append(setup, "net hold", "produce p1 t partition=0 value=a")...)
	if len(msgs) != 1 || !hasClass(msgs[0], "held") || !strings.Contains(text(msgs[0]), "held #") {
		t.Errorf("held message: %d arrows, %q", len(msgs), text(msgs[0]))
	}
}

func TestDiagramDeterministic(t *testing.T) {
	cmds := append(setup, "fault drop response", "produce p1 t partition=0 value=a")
	_, _, _, a := drawn(t, cmds...)
	_, _, _, b := drawn(t, cmds...)
	if a != b {
		t.Fatal("the same step drew two different diagrams")
	}
	if !strings.Contains(a, "<svg") {
		t.Fatal("no svg")
	}
}

func TestDiagramDownBroker(t *testing.T) {
	doc, _, _, _ := drawn(t, append(setup, "crash b0")...)
	for _, svg := range find(doc, "dg") {
		var b0 *html.Node
		for _, n := range find(svg, "node") {
			if attr(n, "data-actor") == "b0" {
				b0 = n
			}
		}
		if b0 == nil || !hasClass(b0, "down") || !strings.Contains(text(b0), "crashed") {
			t.Fatalf("%s: crashed broker not drawn down", attr(svg, "class"))
		}
	}
}

// TestDiagramControllerTraffic: in a cluster, a broker's request to the
// controller ends at the controller half of the node, not at its broker.
func TestDiagramControllerTraffic(t *testing.T) {
	w, step := world(t, "cluster 3", "topic t partitions=1 rf=3")
	d := NewDiagram(w.View(), Exchanges(w.Events(), step), "")
	toController := 0
	for _, a := range d.Arrows {
		if a.Label == "CreateTopics t partitions=1" && a.From != "admin" {
			if !strings.HasSuffix(a.To, "/controller") {
				t.Errorf("forwarded CreateTopics goes %s → %s, want a controller", a.From, a.To)
			}
			toController++
		}
	}
	if toController != 1 {
		t.Errorf("%d forwarded CreateTopics arrows, want 1: %+v", toController, d.Arrows)
	}
	if len(d.Wide.Lanes) != 3 || d.Wide.Quorum == nil {
		t.Errorf("a cluster is drawn in three lanes with a quorum frame: %+v", d.Wide.Lanes)
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		in   string
		n, m int
		want string
	}{
		{"transactional.id pipeline pid=0", 16, 2, "transactional.id|pipeline pid=0"},
		{"transactional.id pipeline pid=0", 26, 2, "transactional.id pipeline|pid=0"},
		{"group by-roundrobin: joining", 16, 3, "group|by-roundrobin:|joining"},
		{"group by-roundrobin: joining", 16, 2, "group|by-roundrobin: …"},
		{"a-very-long-member-id-indeed", 10, 2, "a-very-lo…"},
		{"", 10, 2, ""},
	} {
		if got := strings.Join(wrap(c.in, c.n, c.m), "|"); got != c.want {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", c.in, c.n, c.m, got, c.want)
		}
	}
}

// TestDiagramDense: a step of many messages is drawn one arrow per pair
// of actors and fate, numbered on every layout, each message counted in
// exactly one arrow's label.
func TestDiagramDense(t *testing.T) {
	w, step := world(t, "cluster 3", "topic t partitions=3 rf=3", "producer p1 acks=all", "produce p1 t partition=0 value=a", "partition b1", "advance 15s")
	st, xs := w.View(), Exchanges(w.Events(), step)
	all := arrows(st, xs)
	if len(all) <= denseArrows {
		t.Fatalf("%d arrows: not a dense step", len(all))
	}
	d := NewDiagram(st, xs, "")
	if !d.Dense || d.Wide.Labels || d.Narrow.Labels || len(d.Arrows) > len(all) {
		t.Fatalf("dense %v, wide labels %v, %d arrows of %d", d.Dense, d.Wide.Labels, len(d.Arrows), len(all))
	}
	want, got := 0, 0
	pairs := map[string]bool{}
	for _, a := range all {
		want += a.Count
	}
	for i, a := range d.Arrows {
		if a.N != i+1 {
			t.Errorf("arrow %d numbered %d", i+1, a.N)
		}
		key := a.From + ">" + a.To + ">" + a.Class + ">" + a.Mark
		if pairs[key] {
			t.Errorf("two arrows %s", key)
		}
		pairs[key] = true
		// "Fetch (replica) ×12, BrokerHeartbeat" or "Fetch" with a count
		for _, part := range strings.Split(a.Label, ", ") {
			n := 1
			if i := strings.LastIndex(part, " ×"); i > 0 {
				fmt.Sscan(part[i+len(" ×"):], &n)
			}
			got += n * a.Count
		}
	}
	if got != want {
		t.Errorf("the dense arrows count %d messages, want %d", got, want)
	}
	var sb strings.Builder
	if err := DiagramView(d).Render(context.Background(), &sb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(sb.String(), `class="diagram dense"`) || strings.Contains(sb.String(), `<text class="lbl"`) {
		t.Error("a dense diagram is not marked dense, or still labels its arrows")
	}
}

// TestDiagramRanges: a burst of produces is one arrow each way, the
// answers' offsets given as a range, not six arrows fanning out.
func TestDiagramRanges(t *testing.T) {
	w, step := world(t, append(setup, "produce p1 t partition=0 value=x count=6")...)
	d := NewDiagram(w.View(), Exchanges(w.Events(), step), "")
	if len(d.Arrows) != 2 {
		t.Fatalf("%d arrows, want the requests and the answers: %+v", len(d.Arrows), d.Arrows)
	}
	if a := d.Arrows[1]; a.Count != 6 || !strings.Contains(a.Label, "base_offset=0..5") {
		t.Errorf("the answers: %q ×%d, want base_offset=0..5 ×6", a.Label, a.Count)
	}
}

// TestDiagramFocusNamedByCommand: a step that shows a partition draws
// the roles of that partition.
func TestDiagramFocusNamedByCommand(t *testing.T) {
	w, step := world(t, "cluster 3", "topic a partitions=1 rf=3", "topic b partitions=2 rf=3")
	st, xs := w.View(), Exchanges(w.Events(), step)
	if d := NewDiagram(st, xs, "show replicas b-1"); d.Focus != "b-1" {
		t.Errorf("focus %q, want b-1", d.Focus)
	}
	if d := NewDiagram(st, nil, "advance 1s"); d.Focus != "a-0" {
		t.Errorf("focus %q without a named partition, want the first, a-0", d.Focus)
	}
}

// TestShortLabel: an arrow's label keeps its API and first two fields,
// then the fields that fit, in order; an error is always kept.
func TestShortLabel(t *testing.T) {
	for describe, want := range map[string][2]string{
		"ShareAcknowledge member=w1 session_epoch=3 p0 reject=2..2":                [2]string{"ShareAcknowledge member=w1 session_epoch=3", "p0 reject=2..2"},
		"Produce t-0 pid=1000 epoch=0 seq=1 transactional records=1 acks=-1":       [2]string{"Produce t-0 pid=1000", "epoch=0 seq=1"},
		"ShareFetch lock=15000ms p0 acquired=0..1(delivery 1)":                     [2]string{"ShareFetch lock=15000ms p0", "acquired=0..1(delivery 1)"},
		"Produce t-0 base_offset=-1 error=NOT_LEADER_OR_FOLLOWER":                  [2]string{"Produce t-0 base_offset=-1 error=NOT_LEADER_OR_FOLLOWER", ""},
		"Fetch t-0 offset=0 max_wait=500ms isolation=read_committed_and_then_some": [2]string{"Fetch t-0 offset=0", "max_wait=500ms"},
	} {
		api, _, _ := strings.Cut(describe, " ")
		head, more := shortLabel(MsgView{API: api, Describe: describe})
		if [2]string{head, more} != want {
			t.Errorf("shortLabel(%q) = %q + %q, want %q + %q", describe, head, more, want[0], want[1])
		}
	}
}

// TestRolesOfAMove: while a reassignment waits for a replica that is
// down, the diagram names the adding and the removing broker.
func TestRolesOfAMove(t *testing.T) {
	w, _ := world(t, "cluster 5", "topic orders partitions=1 rf=3", "reassign orders-0 replicas=b1,b4,b0", "advance 1s",
		"crash b3", "reassign orders-0 replicas=b3,b4,b0")
	roles := brokerRoles(w.View(), "orders-0")
	for b, want := range map[string]string{"b3": "adding orders-0", "b1": "removing orders-0", "b4": "", "b0": ""} {
		got := ""
		for _, r := range roles[b] {
			if strings.HasPrefix(r, "adding") || strings.HasPrefix(r, "removing") {
				got = r
			}
		}
		if got != want {
			t.Errorf("%s: %q, want %q (roles %q)", b, got, want, roles[b])
		}
	}
	if d := NewDiagram(w.View(), nil, "show replicas orders-0"); !slices.ContainsFunc(d.Wide.Nodes, func(n Node) bool { return n.Name == "b3" && slices.Contains(n.Lines, "adding orders-0") }) {
		t.Errorf("the diagram does not draw b3 as adding")
	}
}

// TestStoppedNode: a broker let go by a controlled shutdown, and its
// controller, are drawn stopped, a crashed one not.
func TestStoppedNode(t *testing.T) {
	_, _, _, svg := drawn(t, "cluster 3", "stop b1", "advance 1s", "crash b2")
	for _, want := range []string{`class="node broker down stopped" data-actor="b1"`, `class="node controller down stopped" data-actor="b1/controller"`, `class="node broker down" data-actor="b2"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("the diagram lacks %s", want)
		}
	}
}
