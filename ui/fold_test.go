package ui

import (
	"strings"
	"testing"
)

// TestFoldBackground: a quiet minute of a cluster is background traffic
// only, folded by kind; every exchange is counted once and listed in a
// row; nothing delivered reads as in flight; and a produce stays a card.
func TestFoldBackground(t *testing.T) {
	w, step := world(t, "cluster 3", "topic t partitions=1 rf=3", "producer p1 acks=all", "produce p1 t partition=0 value=a", "advance 10s")
	xs := Exchanges(w.Events(), step)
	shown, groups := Fold(xs)
	kinds := map[string]int{}
	counted := len(shown)
	for _, g := range groups {
		kinds[g.Kind] = g.Count
		counted += g.Count
		inRows := 0
		for _, r := range g.Rows {
			inRows += r.Count
			if k := bgKind(r.Exchange); k != g.Kind {
				t.Errorf("a row of %s is a %q exchange", g.Kind, k)
			}
		}
		if inRows != g.Count {
			t.Errorf("%s: %d exchanges, %d in its rows", g.Kind, g.Count, inRows)
		}
	}
	if counted != len(xs) {
		t.Errorf("%d exchanges shown or folded, of %d", counted, len(xs))
	}
	if kinds["BrokerHeartbeat"] == 0 || kinds["Fetch (replica)"] == 0 {
		t.Errorf("folded kinds %v: want broker heartbeats and follower fetches", kinds)
	}
	for _, x := range xs {
		for _, s := range []*Side{x.Req, x.Resp} {
			if s != nil && strings.HasPrefix(s.Mark, MarkInFlight) {
				t.Errorf("%s → %s %s reads %q: nothing is held in this step", s.From, s.To, s.Msg.API, s.Mark)
			}
		}
	}

	w, step = world(t, "cluster 3", "topic t partitions=1 rf=3", "producer p1 acks=all", "produce p1 t partition=0 value=a")
	shown, _ = Fold(Exchanges(w.Events(), step))
	apis := map[string]bool{}
	for _, x := range shown {
		s := x.Req
		if s == nil {
			s = x.Resp
		}
		apis[s.Msg.API] = true
		if background(s.Msg) {
			t.Errorf("background traffic shown as a card: %s", s.Msg.Describe)
		}
	}
	if !apis["Produce"] {
		t.Errorf("the produce is not a card: %v", apis)
	}
}

// TestHeldStaysInFlight: a message the network holds still reads so.
func TestHeldStaysInFlight(t *testing.T) {
	w, step := world(t, append(setup, "net hold", "produce p1 t partition=0 value=a")...)
	xs := Exchanges(w.Events(), step)
	if len(xs) != 1 || !strings.HasPrefix(xs[0].Req.Mark, MarkInFlight+" #") {
		t.Fatalf("held produce: %+v", xs)
	}
}
