package sim

import (
	"strings"
	"testing"
)

// stepOuts runs commands in a fresh world and returns what each printed.
func stepOuts(t *testing.T, cmds ...string) []string {
	t.Helper()
	w := New(1)
	outs := make([]string, len(cmds))
	for i, c := range cmds {
		out, err := w.Exec(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		outs[i] = out
	}
	return outs
}

var stableGroupOfTwo = []string{
	"broker group.initial.rebalance.delay.ms=0",
	"topic orders partitions=2",
	"topic returns partitions=2",
	"member C1 group=g topics=orders session=6s metadata=5s",
	"member C2 group=g topics=orders session=6s",
	"advance 2s",
}

// TestAddedPartitionsTrigger: the leader's metadata refresh notices a
// partition count other than the one it assigned with and rejoins; the
// new partitions get owners. Before the refresh is due, nothing happens.
func TestAddedPartitionsTrigger(t *testing.T) {
	outs := stepOuts(t, append(stableGroupOfTwo, "add-partitions orders count=3", "advance 1s", "advance 6s", "show group g")...)
	n := len(stableGroupOfTwo)
	if strings.Contains(outs[n+1], "metadata changed") {
		t.Fatalf("rejoined before metadata.max.age.ms:\n%s", outs[n+1])
	}
	if !strings.Contains(outs[n+2], "C1           metadata changed: orders 2 -> 3 partitions") {
		t.Fatalf("the leader did not notice the new partition:\n%s", outs[n+2])
	}
	if !strings.Contains(outs[n+3], "orders[2]") {
		t.Fatalf("orders-2 has no owner:\n%s", outs[n+3])
	}
}

// TestUnchangedMetadataNoRebalance: a refresh that finds the same counts
// starts nothing.
func TestUnchangedMetadataNoRebalance(t *testing.T) {
	outs := stepOuts(t, append(stableGroupOfTwo, "advance 12s")...)
	last := outs[len(outs)-1]
	if !strings.Contains(last, "C1 -> b0     Metadata orders") || strings.Contains(last, "rejoin") {
		t.Fatalf("want refreshes and no rejoin:\n%s", last)
	}
}

// TestSubscriptionTrigger: a changed subscription rejoins and the new
// topic is assigned to the member that subscribes to it.
func TestSubscriptionTrigger(t *testing.T) {
	outs := stepOuts(t, append(stableGroupOfTwo, "subscribe C2 topics=orders,returns", "advance 3s", "show group g")...)
	n := len(stableGroupOfTwo)
	if !strings.Contains(outs[n], "subscription changed to orders,returns") {
		t.Fatalf("no rejoin:\n%s", outs[n])
	}
	if !strings.Contains(outs[n+2], "returns[0 1]") {
		t.Fatalf("returns is not assigned:\n%s", outs[n+2])
	}
	w := New(1)
	for _, c := range stableGroupOfTwo {
		if _, err := w.Exec(c); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Exec("subscribe C2 topics=orders"); err == nil {
		t.Fatal("subscribing to the same topics again was accepted")
	}
}
