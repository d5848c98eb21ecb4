//go:build !noquorum

package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/broker"
)

// TestClusterRacks: cluster N racks=... gives each broker its broker.rack,
// the controller then spreads every partition's replicas over both racks
// (KIP-36), and a racks= list of the wrong length is refused.
func TestClusterRacks(t *testing.T) {
	if _, err := New(1).Exec("cluster 4 racks=az1,az2"); err == nil {
		t.Fatal("cluster 4 with two racks named: no error")
	}
	w := New(1)
	execAll(t, w, "cluster 4 racks=az1,az1,az2,az2", "topic orders partitions=4 rf=2")
	im := w.nodes[0].Quorum.Image()
	for i, want := range []string{"az1", "az1", "az2", "az2"} {
		if got := im.Brokers[int32(i)].Rack; got != want {
			t.Errorf("b%d registered rack %q, want %q", i, got, want)
		}
	}
	for p := range int32(4) {
		reps := im.Partition("orders", p).Replicas
		if racks := []string{im.Brokers[reps[0]].Rack, im.Brokers[reps[1]].Rack}; racks[0] == racks[1] {
			t.Errorf("orders-%d on %v: both replicas in rack %s", p, reps, racks[0])
		}
	}
}

// TestConsumerRack: a consumer whose rack= is a follower's is sent there
// by the leader (PreferredReadReplica, KIP-392) and reads the records from
// it; one in the leader's rack, or without a rack, reads at the leader.
func TestConsumerRack(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 4 racks=az1,az1,az2,az2 replica.selector.class="+broker.RackAwareReplicaSelector,
		"topic t partitions=1 rf=2", "producer p acks=all", "produce p t partition=0 value=v count=2", "advance 1s")
	im := w.nodes[0].Quorum.Image()
	ip := im.Partition("t", 0)
	leader, follower := ip.Leader, ip.Replicas[0]+ip.Replicas[1]-ip.Leader
	out := execAll(t, w, "consumer near rack="+im.Brokers[follower].Rack, "fetch near t-0 offset=0")
	wantAll(t, out, fmt.Sprintf("preferred_read_replica=%d", follower),
		fmt.Sprintf("near -> b%d ", follower), "t-0: 0:v0 1:v1 (position 2)")
	for _, c := range []string{"consumer local rack=" + im.Brokers[leader].Rack, "consumer plain"} {
		name := strings.Fields(c)[1]
		out := execAll(t, w, c, "fetch "+name+" t-0 offset=0")
		if strings.Contains(out, "preferred_read_replica") || !strings.Contains(out, fmt.Sprintf("%s -> b%d", name, leader)) {
			t.Errorf("%s was not served by the leader b%d:\n%s", c, leader, out)
		}
	}
}

// TestReassignShown: a move waiting for a down broker shows its adding
// and removing replicas in show replicas and show metadata; cancelled, it
// drops the adding replica and restores the original replica set.
func TestReassignShown(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 4", "topic t partitions=1 rf=2", "advance 1s")
	orig := slices.Clone(w.nodes[0].Quorum.Image().Partition("t", 0).Replicas)
	spare := int32(0)
	for slices.Contains(orig, spare) {
		spare++
	}
	leaving := orig[0]
	out := execAll(t, w, fmt.Sprintf("crash b%d", spare),
		fmt.Sprintf("reassign t-0 replicas=b%d,b%d broker=b%d", spare, orig[1], orig[1]), "show replicas t-0", "show metadata")
	moving := fmt.Sprintf("adding=[b%d] removing=[b%d]", spare, leaving)
	if strings.Count(out, moving) != 2 {
		t.Errorf("want %q in show replicas and in show metadata:\n%s", moving, out)
	}
	out = execAll(t, w, fmt.Sprintf("reassign t-0 cancel broker=b%d", orig[1]))
	wantAll(t, out, "(reassignment cancelled)")
	// Kafka's revert keeps the current order, less the adding replicas.
	up := w.nodes[orig[1]].Quorum.Image().Partition("t", 0)
	got := slices.Sorted(slices.Values(up.Replicas))
	if slices.Sort(orig); up.Reassigning() || !slices.Equal(got, orig) {
		t.Errorf("after the cancel: replicas %v reassigning %v, want %v and none", up.Replicas, up.Reassigning(), orig)
	}
}

// TestViewActorsRacks: the diagram names each broker's rack, down or up,
// and a consumer's client.rack.
func TestViewActorsRacks(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 2 racks=az1,az2", "consumer c rack=az2 read_committed", "crash b1")
	st := w.View()
	for name, want := range map[string]string{"b0": "rack az1", "b1": "rack az2"} {
		if a := actorByName(st, name); a == nil || !slices.Contains(a.Roles, want) {
			t.Errorf("%s: %+v, want the role %q", name, a, want)
		}
	}
	if a := actorByName(st, "c"); a == nil || a.Detail != "read_committed client.rack=az2" {
		t.Errorf("c: %+v, want the detail read_committed client.rack=az2", a)
	}
}

// TestViewStopped: a broker a controlled shutdown took down is stopped,
// not crashed, and so is its controller (combined mode); once restarted
// and crashed, both are crashed.
func TestViewStopped(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 3", "stop b1", "advance 1s")
	stopped := func() (bool, bool, bool) {
		st := w.View()
		return st.Brokers[1].Stopped, actorByName(st, "b1").Stopped, actorByName(st, "b1/controller").Stopped
	}
	if b, a, c := stopped(); !b || !a || !c || w.nodes[1].Up {
		t.Fatalf("after stop: up %v, broker stopped %v, actor stopped %v, controller stopped %v", w.nodes[1].Up, b, a, c)
	}
	execAll(t, w, "restart b1", "advance 15s", "crash b1")
	if b, a, c := stopped(); b || a || c {
		t.Fatalf("after a crash: broker stopped %v, actor stopped %v, controller stopped %v", b, a, c)
	}
}
