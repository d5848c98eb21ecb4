package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/view"
)

// Diagram is the cluster drawn after a step: every actor of the snapshot
// as a node in its lane (clients left, brokers centre, the controller
// quorum right) and every message of the step as an arrow. It is laid
// out twice, for a wide and a narrow screen, from the same nodes and
// arrows; CSS shows one.
//
// # Invariants
//
//   - Drawn from the snapshot and the step's exchanges only: the same
//     step gives the same diagram, byte for byte.
//   - One node per actor, one arrow per message of the step, except that
//     repeats (the same message between the same two actors with the same
//     fate, or differing only in key=number fields, given as a range) and
//     background traffic (broker heartbeats and registrations, raft)
//     with the same ends and fate are one arrow with a count; and a dense
//     step is one arrow per two actors and fate. Every message is counted
//     in exactly one arrow.
//   - What the network did to a message is told by shape and text (dash,
//     cross, double line, clock), never by colour alone.
type Diagram struct {
	Focus  string // the partition whose leader and followers are marked
	Wide   Layout
	Narrow Layout
	Arrows []Arrow // in the order they happened, numbered from 1
	Hidden bool    // the step's messages are hidden until a question is answered
	// Dense: a step of more than denseArrows arrows (a rebalance of nine
	// members, a minute of a partitioned cluster) is drawn one arrow per
	// pair of actors and fate (dense.go); if that is still more than
	// denseLabels, the wide layout numbers them too and lists them in
	// the legend.
	Dense bool
}

// Layout is the diagram at one width, in SVG user units.
type Layout struct {
	Class  string // "wide" or "narrow"
	W, H   int
	Lanes  []Lane
	Nodes  []Node
	Wires  []Wire
	Quorum *Box // the controller quorum's frame, in cluster worlds
	Labels bool // arrows carry their text (wide); else only numbers
}

// Lane is a column heading.
type Lane struct {
	X     int
	Title string
}

// Box is a rectangle.
type Box struct{ X, Y, W, H int }

// Node is one actor placed.
type Node struct {
	view.Actor
	X, Y  int
	R     int      // circle radius (brokers, controllers)
	Box   Box      // clients are boxes
	State string   // "up", "down" or "cut"
	Lines []string // role lines under (or in) the node
	LineX int      // the role lines' centre: the node's, or moved in from the edge
}

// roleCharW is the width of a character of a role line, in user units
// (11.5px system-ui on the wide layout, 12px on the narrow one).
func roleCharW(g geom) float64 {
	if g.labels {
		return 6.6
	}
	return 6.9
}

// lineX centres a circle's role lines under it, moved in just enough
// that the widest stays inside the drawing ("active controller" under
// the narrow layout's right lane).
func lineX(n Node, g geom) int {
	w := 0.0
	for _, l := range n.Lines {
		w = math.Max(w, float64(len([]rune(l)))*roleCharW(g))
	}
	half := int(math.Ceil(w/2)) + 2
	return max(min(n.X, g.w-half), half)
}

// Circle reports whether the node is drawn as a circle.
func (n Node) Circle() bool { return n.R > 0 }

// Arrow is one message of the step, as the diagram labels it.
type Arrow struct {
	N        int // 1-based order in the step
	From, To string
	Class    string // "" or dropped, down, duplicated, delayed, late, held
	Mark     string // the mark in words ("dropped", "held #3", ...)
	Glyph    string // ✕ ×2 ⏱ ⏸
	Label    string // API and the fields that matter: "Produce t-0 seq=1"
	More     string // fields dropped on small screens
	Title    string // the full describe.Message text
	Count    int    // >1: folded background messages
	Folded   bool   // background traffic
	Response bool
}

// Wire is an arrow placed: its path and where its mark sits.
type Wire struct {
	Arrow
	Path       string // the whole route, sender to receiver
	Ghost      string // for a message that stops: the rest of the route, faint
	Twin       string // a duplicated message's second line
	MarkX      int    // where it stops or waits
	MarkY      int
	LX, LY     int    // label anchor
	Motion     string // the whole route, along which the dot moves
	Index, Num int    // animation order and how many wires
}

// controllerAPIs are the requests a broker sends to the active
// controller (KIP-500, KIP-631 and KIP-590's forwarding): between two
// brokers they go to the controller half of a combined-mode node.
var controllerAPIs = map[int16]bool{
	kmsg.BrokerRegistration.Int16(): true, kmsg.BrokerHeartbeat.Int16(): true, kmsg.AlterPartition.Int16(): true,
	kmsg.CreateTopics.Int16(): true, kmsg.DeleteTopics.Int16(): true, kmsg.CreatePartitions.Int16(): true,
	kmsg.IncrementalAlterConfigs.Int16(): true, kmsg.AlterConfigs.Int16(): true, kmsg.AllocateProducerIDs.Int16(): true,
}

// raftAPI is what Message calls a raft message (it is no kmsg type).
const raftAPI = "*raftpb.Message"

// background reports whether a message is traffic a learner can fold
// away: broker liveness and the quorum's own replication.
func background(m MsgView) bool {
	if m.API == raftAPI {
		return true
	}
	return m.Key == kmsg.BrokerHeartbeat.Int16() || m.Key == kmsg.BrokerRegistration.Int16()
}

// NewDiagram lays out the world after a step with the step's messages;
// command is the step's, which may name the partition in focus.
func NewDiagram(st view.World, xs []Exchange, command string) Diagram {
	d := Diagram{Focus: focus(st, xs, command)}
	d.Arrows = ranges(arrows(st, xs))
	if len(d.Arrows) > denseArrows {
		d.Arrows = bundle(d.Arrows)
		d.Dense = len(d.Arrows) > denseLabels
	}
	d.Wide = layout(st, d, wideGeom)
	d.Narrow = layout(st, d, narrowGeom)
	return d
}

// endpoints maps a message's ends to actor names: a controller request
// between brokers ends at the receiver's controller, its answer starts
// there, and a raft message runs between controllers.
func endpoints(st view.World, s *Side) (string, string) {
	from, to := s.From, s.To
	hasCtl := map[string]bool{}
	for _, a := range st.Actors {
		if a.Kind == view.KindController {
			hasCtl[a.Host] = true
		}
	}
	if !hasCtl[from] || !hasCtl[to] {
		return from, to
	}
	switch {
	case s.Msg.API == raftAPI:
		return from + "/controller", to + "/controller"
	case controllerAPIs[s.Msg.Key] && s.Msg.Response:
		return from + "/controller", to
	case controllerAPIs[s.Msg.Key]:
		return from, to + "/controller"
	}
	return from, to
}

// arrows lists the step's messages in the order they happened (Order;
// each request before its answer, and a broker's answer to a forwarded
// request after the controller's), folding background traffic.
func arrows(st view.World, xs []Exchange) []Arrow {
	known := map[string]bool{}
	for _, a := range st.Actors {
		known[a.Name] = true
	}
	var sides []*Side
	for _, x := range xs {
		for _, s := range []*Side{x.Req, x.Resp} {
			if s != nil {
				sides = append(sides, s)
			}
		}
	}
	slices.SortStableFunc(sides, func(a, b *Side) int { return a.Order - b.Order })
	var out []Arrow
	folded := map[string]int{}
	for _, s := range sides {
		from, to := endpoints(st, s)
		if !known[from] || !known[to] {
			continue
		}
		a := Arrow{From: from, To: to, Title: s.Msg.Describe, Response: s.Msg.Response, Folded: background(s.Msg), Count: 1}
		a.Class, a.Mark, a.Glyph = fate(s.Mark)
		a.Label, a.More = shortLabel(s.Msg)
		// Repeats fold into one arrow with a count: the same
		// message between the same two actors with the same fate
		// (a follower's long polls), and background traffic.
		key := from + ">" + to + ">" + a.Label + ">" + a.More + ">" + a.Mark
		if a.Folded {
			key = from + ">" + to + ">" + a.Label + ">" + a.Mark
		}
		if i, ok := folded[key]; ok {
			out[i].Count++
			continue
		}
		folded[key] = len(out)
		out = append(out, a)
	}
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

// fate turns a card's mark into the arrow's class, words and glyph; only
// a held message (net hold) is in flight at the end of a step.
func fate(mark string) (class, words, glyph string) {
	switch {
	case mark == MarkDropped:
		return "dropped", "dropped", "✕"
	case mark == MarkBrokerDown:
		return "down", "lost: broker down", "✕"
	case mark == MarkDuplicated:
		return "duplicated", "duplicated", "×2"
	case mark == MarkCopy:
		return "duplicated", "duplicate copy", "×2"
	case strings.HasPrefix(mark, MarkDelayed):
		return "delayed", mark, "⏱"
	case mark == MarkLate:
		return "late", "arrived late", "⏱"
	case strings.HasPrefix(mark, MarkInFlight+" #"):
		return "held", "held " + strings.TrimPrefix(mark, MarkInFlight+" "), "⏸"
	}
	return "", "", ""
}

// shortLabel is a message's API with its first two fields, and the
// fields after them that fit in moreRunes: "Produce t-0 pid=1000" +
// "epoch=0 seq=1". Long values (member ids) are cut; an error is always
// kept. The budget, not a count, keeps a share acknowledgement's kind
// ("p0 reject=2..2") after its member and session epoch.
func shortLabel(m MsgView) (string, string) {
	const moreRunes = 24
	if m.API == raftAPI {
		return "Raft", ""
	}
	var toks []string // fields; "acquired=0..1(delivery 1)" is one
	for _, t := range strings.Fields(strings.TrimSpace(strings.TrimPrefix(m.Describe, m.API))) {
		if k := len(toks) - 1; k >= 0 && strings.Count(toks[k], "(") > strings.Count(toks[k], ")") {
			toks[k] += " " + t
			continue
		}
		toks = append(toks, t)
	}
	head := []string{m.API}
	if len(toks) > 0 && toks[0] == "(replica)" {
		head, toks = append(head, "(replica)"), toks[1:]
	}
	var more []string
	errTok, full := "", false
	n := 0
	for _, t := range toks {
		if strings.HasPrefix(t, "error=") {
			errTok = t
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok && len(v) > 12 && !strings.Contains(v, "(") {
			t = k + "=" + cut(v, 10) // a member id: its start is enough
		}
		t = cut(t, 28)
		switch {
		case n < 2:
			head = append(head, t)
		case !full && (len(more) == 0 || len([]rune(strings.Join(append(more, t), " "))) <= moreRunes):
			more = append(more, t)
		default:
			full = true // fields stay in order: none after one left out
		}
		n++
	}
	if errTok != "" && errTok != "error=NONE" {
		head = append(head, errTok)
	}
	return strings.Join(head, " "), strings.Join(more, " ")
}

// focus is the partition the step's command names ("show replicas
// __transaction_state-1"), else the one its messages name first, else
// the first partition of a topic that is not internal.
func focus(st view.World, xs []Exchange, command string) string {
	exists := map[string]bool{}
	first := ""
	for _, b := range st.Brokers {
		for _, p := range b.Partitions {
			exists[p.Name] = true
			if first == "" && !strings.HasPrefix(p.Name, "__") {
				first = p.Name
			}
		}
	}
	for _, tok := range strings.Fields(command) {
		if exists[tok] {
			return tok
		}
	}
	for _, x := range xs {
		for _, s := range []*Side{x.Req, x.Resp} {
			if s == nil {
				continue
			}
			for _, p := range s.Msg.Parts {
				if exists[p.Name] {
					return p.Name
				}
			}
		}
	}
	return first
}

// geom is the measures of one layout.
type geom struct {
	class                  string
	w                      int
	laneX                  [3]int // clients, brokers, controllers
	laneX2                 [2]int // clients, brokers, without controllers
	clientW, clientH       int
	brokerR, ctlR          int
	clientRow, brokerRow   int
	ctlRow, top, pad       int
	labels                 bool
	quorumTitle            string
	clientChars            int // a client's state lines wrap at this
	pairGap, sameLaneBulge float64
}

var (
	wideGeom = geom{class: "wide", w: 960, laneX: [3]int{100, 470, 850}, laneX2: [2]int{130, 560},
		clientW: 170, clientH: 60, brokerR: 34, ctlR: 26, clientRow: 74, brokerRow: 128, ctlRow: 96, top: 44, pad: 24,
		labels: true, pairGap: 20, sameLaneBulge: 56, quorumTitle: N("controller quorum"), clientChars: 24}
	narrowGeom = geom{class: "narrow", w: 400, laneX: [3]int{60, 212, 352}, laneX2: [2]int{70, 290},
		clientW: 116, clientH: 48, brokerR: 27, ctlR: 21, clientRow: 58, brokerRow: 104, ctlRow: 80, top: 38, pad: 16,
		labels: false, pairGap: 12, sameLaneBulge: 44, quorumTitle: N("controllers"), clientChars: 16}
)

func lane(kind string) int {
	switch kind {
	case view.KindBroker:
		return 1
	case view.KindController:
		return 2
	}
	return 0
}

func layout(st view.World, d Diagram, g geom) Layout {
	if d.Dense {
		g.labels = false // numbers, and the legend
	}
	L := Layout{Class: g.class, W: g.w, Labels: g.labels}
	var lanes [3][]view.Actor
	for _, a := range st.Actors {
		lanes[lane(a.Kind)] = append(lanes[lane(a.Kind)], a)
	}
	xs := g.laneX[:]
	if len(lanes[2]) == 0 {
		xs = []int{g.laneX2[0], g.laneX2[1]}
	}
	// A client's box grows by a line for a state that wraps onto two.
	lines := map[string][]string{}
	boxH := g.clientH
	for _, a := range lanes[0] {
		lines[a.Name] = clientLines(a, g.clientChars)
		boxH = max(boxH, g.clientH+15*(len(lines[a.Name])-2))
	}
	rows := [3]int{g.clientRow + boxH - g.clientH, g.brokerRow, g.ctlRow}
	height := 0
	for i := range xs {
		height = max(height, len(lanes[i])*rows[i])
	}
	L.H = g.top + height + g.pad
	titles := [3]string{N("clients"), N("brokers"), g.quorumTitle}
	for i, x := range xs {
		if len(lanes[i]) > 0 {
			// upper case, letter-spaced: about 9 units a letter; moved
			// in from the edge like the role lines
			half := len(titles[i])*9/2 + 2
			L.Lanes = append(L.Lanes, Lane{X: max(min(x, g.w-half), half), Title: titles[i]})
		}
	}
	roles := brokerRoles(st, d.Focus)
	for i, x := range xs {
		y0 := g.top + (height-len(lanes[i])*rows[i])/2 + rows[i]/2
		for j, a := range lanes[i] {
			n := Node{Actor: a, X: x, Y: y0 + j*rows[i], State: "up"}
			switch {
			case !a.Up:
				n.State = "down"
			case a.Cut:
				n.State = "cut"
			}
			switch a.Kind {
			case view.KindBroker:
				n.R = g.brokerR
				n.Lines = append(roles[a.Name], a.Roles...)
			case view.KindController:
				n.R = g.ctlR
				n.Lines = a.Roles
			default:
				n.Lines = lines[a.Name]
				h := g.clientH + 15*max(len(n.Lines)-2, 0)
				n.Box = Box{x - g.clientW/2, n.Y - h/2, g.clientW, h}
			}
			if n.State == "down" && n.Circle() {
				down := "crashed"
				if a.Stopped {
					down = "stopped" // a controlled shutdown
				}
				n.Lines = append([]string{down}, n.Lines...)
			}
			if n.State == "cut" {
				n.Lines = append([]string{"✂ cut off"}, n.Lines...)
			}
			n.LineX = lineX(n, g)
			L.Nodes = append(L.Nodes, n)
		}
	}
	if len(lanes[2]) > 0 {
		q := L.Nodes[len(L.Nodes)-len(lanes[2]):]
		L.Quorum = &Box{q[0].X - g.ctlR - 22, q[0].Y - g.ctlR - 18, 2*g.ctlR + 44, q[len(q)-1].Y - q[0].Y + 2*g.ctlR + 46}
	}
	L.Wires = wires(L.Nodes, d.Arrows, g, L.H)
	return L
}

// clientLines is what a client's box says under its name, in at most
// four lines of n characters: its kind (a member's or a plain client's
// state line speaks for it), then its state wrapped on words.
func clientLines(a view.Actor, n int) []string {
	if a.Detail == "" {
		return []string{a.Kind}
	}
	var out []string
	if a.Kind != view.KindMember && a.Kind != view.KindClient {
		out = append(out, a.Kind)
	}
	return append(out, wrap(a.Detail, n, 4-len(out))...)
}

// wrap breaks s on spaces into at most max lines of n characters; a
// word too long for a line, or what does not fit, is cut with "…".
func wrap(s string, n, most int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= n:
			line += " " + w
		case len(out) == most-1:
			return append(out, cut(line+" "+w, n))
		default:
			out = append(out, cut(line, n))
			line = w
		}
	}
	return append(out, cut(line, n))
}

// cut shortens s to n characters, marking the cut with "…".
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// brokerRoles names each broker's part in the partition in focus:
// leader (with its epoch) or follower, in or out of the ISR, and, while
// a reassignment moves it (KIP-455, as the leader knows it), adding or
// removing; a broker that is down is still named adding or removing.
func brokerRoles(st view.World, focus string) map[string][]string {
	out := map[string][]string{}
	if focus == "" {
		return out
	}
	var adding, removing []int32
	for _, b := range st.Brokers {
		for _, p := range b.Partitions {
			if p.Name != focus {
				continue
			}
			if p.Leader == b.ID {
				adding, removing = p.Adding, p.Removing
			}
			switch {
			case p.Leader == b.ID:
				out[b.Name] = []string{fmt.Sprintf("★ leader %s e%d", p.Name, p.LeaderEpoch)}
			case slices.Contains(p.ISR, b.ID):
				out[b.Name] = []string{"follower " + p.Name}
			default:
				out[b.Name] = []string{"follower " + p.Name + ", out of ISR"}
			}
		}
	}
	for _, b := range st.Brokers {
		switch {
		case slices.Contains(adding, b.ID):
			out[b.Name] = append(out[b.Name], "adding "+focus)
		case slices.Contains(removing, b.ID):
			out[b.Name] = append(out[b.Name], "removing "+focus)
		}
	}
	return out
}

type pt struct{ x, y float64 }

// wires routes each arrow: a quadratic curve from the sender's edge to
// the receiver's, bent aside by its rank among the arrows between the
// same two nodes (so a request and its answer do not overlap), and more
// within a lane, so that it passes beside the nodes in between.
func wires(nodes []Node, arrows []Arrow, g geom, height int) []Wire {
	at := map[string]Node{}
	for _, n := range nodes {
		at[n.Name] = n
	}
	rank := map[string]int{}
	type curve struct{ s, c, e pt }
	var curves []curve
	var out []Wire
	for i, a := range arrows {
		f, t := at[a.From], at[a.To]
		p0, p1 := pt{float64(f.X), float64(f.Y)}, pt{float64(t.X), float64(t.Y)}
		key := a.From + ">" + a.To
		k := rank[key]
		rank[key]++
		dx, dy := p1.x-p0.x, p1.y-p0.y
		dist := math.Hypot(dx, dy)
		if dist == 0 { // a node to itself: a loop
			dx, dy, dist = 0, -1, 1
			p1 = pt{p0.x + 1, p0.y}
		}
		nx, ny := -dy/dist, dx/dist // left of the direction of travel
		bend := g.pairGap * float64(k+1)
		if f.X == t.X {
			// Within a lane, every arrow bends right, nested by its rank
			// between the two nodes either way, past the nodes between.
			pair := min(a.From, a.To) + "=" + max(a.From, a.To)
			k = rank[pair]
			rank[pair]++
			nx, ny = 1, 0
			bend = g.sameLaneBulge*(0.4+0.6*dist/float64(g.brokerRow)) + g.pairGap*float64(k)
		}
		mid := pt{(p0.x + p1.x) / 2, (p0.y + p1.y) / 2}
		c := pt{mid.x + nx*bend*2, mid.y + ny*bend*2}
		s := edge(f, c, g)
		e := edge(t, c, g)
		w := Wire{Arrow: a, Index: i, Num: len(arrows)}
		w.Path = quad(s, c, e)
		curves = append(curves, curve{s, c, e})
		stop := bez(s, c, e, .5)
		switch a.Class {
		case "dropped", "held", "delayed":
			l, r := split(s, c, e)
			w.Path, w.Ghost = quad(l[0], l[1], l[2]), quad(r[0], r[1], r[2])
		case "down":
			stop = bez(s, c, e, .85)
		case "duplicated":
			w.Twin = quad(pt{s.x + nx*5, s.y + ny*5}, pt{c.x + nx*5, c.y + ny*5}, pt{e.x + nx*5, e.y + ny*5})
		}
		w.MarkX, w.MarkY = int(math.Round(stop.x)), int(math.Round(stop.y))
		w.Motion = w.Path
		if w.Ghost != "" {
			w.Motion = quad(s, c, e) // CSS stops the dot midway
		}
		out = append(out, w)
	}
	// Labels go last, around the nodes and the marks.
	taken := obstacles(nodes, g)
	for _, w := range out {
		if w.Glyph != "" {
			x, y := float64(w.MarkX), float64(w.MarkY)
			taken = append(taken, rect{x - 12, y - 12, x + 12, y + 12})
		}
	}
	for i := range out {
		cv := curves[i]
		lw, lh := labelSize(out[i].Arrow, g)
		out[i].LX, out[i].LY = placeLabel(&taken, float64(g.w), float64(height), cv.s, cv.c, cv.e, lw, lh)
	}
	return out
}

// rect is a box a label must not overlap: [x0, y0, x1, y1].
type rect [4]float64

func (r rect) overlaps(o rect) bool {
	return r[0] < o[2] && o[0] < r[2] && r[1] < o[3] && o[1] < r[3]
}

// charW is the width of one character of a label or role line, in user
// units (11.5px monospace and a margin).
const charW = 7.2

// obstacles are the nodes and their role lines.
func obstacles(nodes []Node, g geom) []rect {
	var out []rect
	for _, n := range nodes {
		if n.Circle() {
			r := float64(n.R) + 2
			out = append(out, rect{float64(n.X) - r, float64(n.Y) - r, float64(n.X) + r, float64(n.Y) + r})
			for i, l := range n.Lines {
				y := float64(n.Y + n.R + 14 + 13*i)
				w := float64(len([]rune(l))) * roleCharW(g) / 2
				out = append(out, rect{float64(n.LineX) - w, y - 11, float64(n.LineX) + w, y + 3})
			}
			continue
		}
		b := n.Box
		out = append(out, rect{float64(b.X), float64(b.Y), float64(b.X + b.W), float64(b.Y + b.H)})
	}
	return out
}

// labelSize is the width and height a wire's label takes.
func labelSize(a Arrow, g geom) (float64, float64) {
	if !g.labels {
		return 20, 20
	}
	text := fmt.Sprintf("%d %s %s %s %s %s", a.N, a.Label, a.More, times(a), a.Glyph, a.Mark)
	return float64(len([]rune(strings.TrimSpace(text)))) * charW, 15
}

// placeLabel puts a label by its curve where it overlaps nothing placed
// so far: near the middle first, then further along either way, centred
// on the curve, beside it either way, above or below; if nowhere is
// free, where it overlaps least.
func placeLabel(taken *[]rect, width, height float64, s, c, e pt, w, h float64) (int, int) {
	best, bestR, fewest := pt{}, rect{}, -1
	for _, t := range []float64{.5, .4, .6, .3, .7, .22, .78, .12, .88} {
		m := bez(s, c, e, t)
		for _, dx := range []float64{0, w/2 + 10, -w/2 - 10} {
			for _, dy := range []float64{-4, 14, -18, 28, -32, 42, -46, 56, -60, 70, -74, 84, -88} {
				p := pt{m.x + dx, m.y + dy}
				r := rect{p.x - w/2 - 2, p.y - h + 1, p.x + w/2 + 2, p.y + 5}
				n := 0
				if r[0] < 0 || r[2] > width || r[1] < 24 || r[3] > height {
					n += 2
				}
				for _, o := range *taken {
					if r.overlaps(o) {
						n++
					}
				}
				if fewest < 0 || n < fewest {
					best, bestR, fewest = p, r, n
				}
				if n == 0 {
					*taken = append(*taken, r)
					return int(math.Round(p.x)), int(math.Round(p.y))
				}
			}
		}
	}
	*taken = append(*taken, bestR)
	return int(math.Round(best.x)), int(math.Round(best.y))
}

// edge is where the line from a node's centre towards c leaves the node.
func edge(n Node, c pt, g geom) pt {
	x, y := float64(n.X), float64(n.Y)
	dx, dy := c.x-x, c.y-y
	d := math.Hypot(dx, dy)
	if d == 0 {
		return pt{x, y}
	}
	if n.Circle() {
		r := float64(n.R) + 4
		return pt{x + dx/d*r, y + dy/d*r}
	}
	hw, hh := float64(n.Box.W)/2+4, float64(n.Box.H)/2+4
	s := math.Min(hw/math.Max(math.Abs(dx), 1e-9), hh/math.Max(math.Abs(dy), 1e-9))
	return pt{x + dx*s, y + dy*s}
}

func bez(a, c, b pt, t float64) pt {
	u := 1 - t
	return pt{u*u*a.x + 2*u*t*c.x + t*t*b.x, u*u*a.y + 2*u*t*c.y + t*t*b.y}
}

// split cuts a quadratic curve at its middle (de Casteljau).
func split(a, c, b pt) ([3]pt, [3]pt) {
	ac, cb := pt{(a.x + c.x) / 2, (a.y + c.y) / 2}, pt{(c.x + b.x) / 2, (c.y + b.y) / 2}
	m := pt{(ac.x + cb.x) / 2, (ac.y + cb.y) / 2}
	return [3]pt{a, ac, m}, [3]pt{m, cb, b}
}

func quad(a, c, b pt) string {
	return fmt.Sprintf("M%.0f %.0fQ%.0f %.0f %.0f %.0f", a.x, a.y, c.x, c.y, b.x, b.y)
}

// orderStyle staggers a wire's animation by its order in the step: it
// is the --i-th of --n (index.html's diagram block times them).
func orderStyle(w Wire) templ.SafeCSS {
	return templ.SafeCSS(fmt.Sprintf("--i: %d; --n: %d", w.Index, w.Num))
}

func viewBox(l Layout) string { return fmt.Sprintf("0 0 %d %d", l.W, l.H) }

// marker is the id of a layout's arrowhead (ids are per document).
func marker(l Layout, class string) string {
	if class == "" {
		class = "ok"
	}
	return "ah-" + l.Class + "-" + class
}

func markerRef(l Layout, class string) string { return "url(#" + marker(l, class) + ")" }

func itoa(n int) string { return fmt.Sprint(n) }

// wireMarker is the arrowhead of a wire; a message that never arrives
// has none.
func wireMarker(l Layout, w Wire) string {
	if w.Ghost != "" || w.Class == "down" {
		return ""
	}
	return markerRef(l, w.Class)
}

// shortName is a node's name inside its circle: a controller shows only
// "controller" after its host's name.
func shortName(n Node) string {
	if n.Kind == view.KindController {
		return " ctl"
	}
	return n.Name
}

func crossPath(x, y, r int) string {
	return fmt.Sprintf("M%d %dL%d %dM%d %dL%d %d", x-r, y-r, x+r, y+r, x+r, y-r, x-r, y+r)
}

// roleClass styles a role line by what it says.
func roleClass(line string) string {
	switch {
	case strings.HasPrefix(line, "★"), strings.HasPrefix(line, "active"):
		return "lead"
	case strings.Contains(line, "out of ISR"), strings.HasPrefix(line, "✂"), line == "crashed", line == "stopped", strings.HasSuffix(line, "killed"):
		return "warn"
	}
	return ""
}

// times is a folded arrow's count, "×12", or "".
func times(a Arrow) string {
	if a.Count < 2 {
		return ""
	}
	return fmt.Sprintf("×%d", a.Count)
}
