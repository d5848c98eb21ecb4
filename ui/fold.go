package ui

import (
	"context"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// BgGroup is one kind of background traffic in a step's "On the wire"
// cards, folded into a summary row: a cluster's brokers heartbeat and
// register with the controller, the controllers replicate their log
// (raft), and followers long-poll their leaders whether or not there is
// anything new. A minute of a three-broker cluster is hundreds of such
// exchanges; one row per kind with a count keeps the step readable, and
// a toggle lists them.
//
// # Invariants
//
//   - Fold keeps every exchange: each is either shown or counted in
//     exactly one group, and listed in one of its rows (repeats, with
//     the same ends, text and fate, share a row with a count).
//   - Only traffic the engine does not print is folded: raft, broker
//     heartbeats and registrations (never printed), and a follower's
//     fetch that was not printed (cluster.go's visible: nothing new).
//     A printed follower fetch, which moves an offset or a high
//     watermark, stays a card.
type BgGroup struct {
	Kind   string // "Fetch (replica)", "BrokerHeartbeat", "BrokerRegistration", "Raft"
	Count  int    // exchanges
	Routes []string
	Fates  []Fate // the marks, counted; delivered ones are not named
	Rows   []BgRow
}

// BgRow is an exchange of a group, standing for Count identical ones
// sent between its time and Last.
type BgRow struct {
	Exchange
	Count int
	Last  int64
}

// bgKind names the background kind of an exchange, or "" for one a
// learner reads as a card.
func bgKind(x Exchange) string {
	s := x.Req
	if s == nil {
		s = x.Resp
	}
	switch {
	case s.Msg.API == raftAPI:
		return "Raft"
	case background(s.Msg):
		return s.Msg.API
	case s.Msg.Key == kmsg.Fetch.Int16() && !s.Msg.Response && s.Unprinted && hasField(s.Msg.Fields, "replica_id") &&
		(x.Resp == nil || x.Resp.Unprinted):
		return "Fetch (replica)"
	}
	return ""
}

func hasField(fs []Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

// Fold splits a step's exchanges into those shown as cards, in order,
// and the background groups, in the order each kind first occurred.
func Fold(xs []Exchange) (shown []Exchange, groups []BgGroup) {
	group := map[string]int{}
	row := map[string][2]int{}
	routes := map[string]bool{}
	fates := map[string]map[string]int{}
	fateOrder := map[string][]string{}
	for _, x := range xs {
		kind := bgKind(x)
		if kind == "" {
			shown = append(shown, x)
			continue
		}
		gi, ok := group[kind]
		if !ok {
			gi = len(groups)
			group[kind] = gi
			groups = append(groups, BgGroup{Kind: kind})
			fates[kind] = map[string]int{}
		}
		g := &groups[gi]
		g.Count++
		first := x.Req
		if first == nil {
			first = x.Resp
		}
		if r := first.From + " → " + first.To; !routes[kind+r] {
			routes[kind+r] = true
			g.Routes = append(g.Routes, r)
		}
		key := kind
		for _, s := range []*Side{x.Req, x.Resp} {
			if s == nil {
				key += "|-"
				continue
			}
			key += "|" + s.From + ">" + s.To + ">" + s.Msg.Describe + ">" + s.Mark
			if s.Mark != "" {
				if fates[kind][s.Mark] == 0 {
					fateOrder[kind] = append(fateOrder[kind], s.Mark)
				}
				fates[kind][s.Mark]++
			}
		}
		if at, ok := row[key]; ok {
			r := &groups[at[0]].Rows[at[1]]
			r.Count++
			r.Last = first.Time
			continue
		}
		row[key] = [2]int{gi, len(g.Rows)}
		g.Rows = append(g.Rows, BgRow{Exchange: x, Count: 1, Last: first.Time})
	}
	for i := range groups {
		g := &groups[i]
		for _, m := range fateOrder[g.Kind] {
			g.Fates = append(g.Fates, Fate{Count: fates[g.Kind][m], Mark: m})
		}
	}
	return shown, groups
}

// bgTime is a row's time, or the span of its repeats.
func bgTime(r BgRow) string {
	first := r.Req
	if first == nil {
		first = r.Resp
	}
	if r.Count < 2 || r.Last == first.Time {
		return Clock(first.Time)
	}
	return Clock(first.Time) + "–" + Clock(r.Last)
}

// bgRoutes lists a group's routes, the first few, in the component's
// language.
func bgRoutes(ctx context.Context, g BgGroup) string {
	const most = 4
	if len(g.Routes) <= most {
		return strings.Join(g.Routes, ", ")
	}
	return strings.Join(g.Routes[:most], ", ") + ", … " + Tf(ctx, "(%d routes)", len(g.Routes))
}

// Fate is how many of a group's messages carry one mark: "152 dropped".
type Fate struct {
	Count int
	Mark  string
}

// fateText is a fate in the component's language.
func fateText(ctx context.Context, f Fate) string { return itoa(f.Count) + " " + markText(ctx, f.Mark) }
