//go:build !noquorum

package sim

import (
	"slices"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/view"
)

func actorByName(st view.World, name string) *view.Actor {
	for i := range st.Actors {
		if st.Actors[i].Name == name {
			return &st.Actors[i]
		}
	}
	return nil
}

// TestViewActorsSingleBroker: clients in creation order with their kind,
// the broker with the coordinators it hosts, a killed client down.
func TestViewActorsSingleBroker(t *testing.T) {
	w := New(1)
	execAll(t, w, "broker", "topic t partitions=1", "producer tx transactional.id=app", "member m1 group=g topics=t", "advance 5s", "kill m1")
	st := w.View()
	var names []string
	for _, a := range st.Actors {
		names = append(names, a.Kind+":"+a.Name)
	}
	want := []string{"admin:admin", "producer:tx", "client:m1", "broker:b0"}
	if !slices.Equal(names, want) {
		t.Fatalf("actors %v, want %v", names, want)
	}
	if m := actorByName(st, "m1"); m.Up {
		t.Errorf("a killed client is up: %+v", m)
	}
	b0 := actorByName(st, "b0")
	for _, role := range []string{"group coordinator (g)", "transaction coordinator (app)"} {
		if !slices.Contains(b0.Roles, role) {
			t.Errorf("b0 roles %v lack %q", b0.Roles, role)
		}
	}
}

// TestViewActorsCluster: one voter per node, exactly one active
// controller while the quorum is whole, and a cut or crashed broker
// marked so, its controller too.
func TestViewActorsCluster(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 3", "topic t partitions=1 rf=3")
	active := func(st view.World) []string {
		var out []string
		for _, a := range st.Actors {
			if a.Kind == view.KindController && slices.Contains(a.Roles, "active controller") {
				out = append(out, a.Host)
			}
		}
		return out
	}
	st := w.View()
	if got := active(st); len(got) != 1 || got[0] != w.controllerName() {
		t.Fatalf("active controllers %v, want [%s]", got, w.controllerName())
	}
	execAll(t, w, "partition b1", "crash b2")
	st = w.View()
	for name, want := range map[string][2]bool{"b1": {true, true}, "b1/controller": {true, true}, "b2": {false, false}, "b2/controller": {false, false}, "b0": {true, false}} {
		a := actorByName(st, name)
		if a == nil || a.Up != want[0] || a.Cut != want[1] {
			t.Errorf("%s: %+v, want up=%v cut=%v", name, a, want[0], want[1])
		}
	}
}

// TestViewTV2: a producer on transaction version 2 says so in its box,
// and its transaction in the coordinator's view; one on version 1 not.
func TestViewTV2(t *testing.T) {
	w := New(1)
	execAll(t, w, "broker", "topic out partitions=1", "producer a transactional.id=one", "producer b transactional.id=two tv=2",
		"begin a", "produce a out partition=0 value=x", "begin b", "produce b out partition=0 value=y")
	st := w.View()
	for name, tv2 := range map[string]bool{"a": false, "b": true} {
		if got := strings.Contains(actorByName(st, name).Detail, "tv=2"); got != tv2 {
			t.Errorf("%s's box says tv=2: %v, want %v (%q)", name, got, tv2, actorByName(st, name).Detail)
		}
	}
	for _, tx := range st.Txns {
		if tx.TV2 != (tx.ID == "two") {
			t.Errorf("transaction %s: TV2 %v", tx.ID, tx.TV2)
		}
	}
	if len(st.Txns) != 2 {
		t.Fatalf("%d transactions in the view, want 2", len(st.Txns))
	}
}
