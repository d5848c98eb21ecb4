//go:build !noquorum

package sim

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/group"
)

// threeBrokerGroups runs the group simulation on a cluster: the topics
// and __consumer_offsets have three replicas, and any broker may crash,
// so the group coordinator moves with the leadership of the group's
// __consumer_offsets partition and members must find the new one.
var threeBrokerGroups = groupShape{
	brokers: func(settings string) string {
		return "cluster 3 replica.lag.time.max.ms=3000 offsets.topic.num.partitions=3" + settings
	},
	rf: " rf=3",
	crash: func(w *World, rng *rand.Rand, exec func(string)) {
		n := w.nodes[rng.IntN(len(w.nodes))].Name
		exec("crash " + n)
		exec(fmt.Sprintf("advance %dms", rng.IntN(15000)))
		exec("restart " + n)
	},
	coordinator: func(w *World) *Node {
		return w.Leader(group.Topic, group.PartitionFor("g", 3))
	},
}

// TestGroupClusterRandom checks TestGroupRandom's end state on three
// brokers with coordinator failover (GROUPSIM_CLUSTER_SEED=N replays one
// seed, GROUPSIM_CLUSTER_SEEDS=N runs seeds 1..N).
func TestGroupClusterRandom(t *testing.T) {
	if s := os.Getenv("GROUPSIM_CLUSTER_SEED"); s != "" {
		n, _ := strconv.Atoi(s)
		runGroupSim(t, uint64(n), true, threeBrokerGroups)
		return
	}
	seeds := uint64(20)
	if testing.Short() {
		seeds = 4
	}
	if s := os.Getenv("GROUPSIM_CLUSTER_SEEDS"); s != "" {
		n, _ := strconv.Atoi(s)
		seeds = uint64(n)
	}
	// The runs must have moved the coordinator: count the elections of
	// the group's __consumer_offsets partition.
	moves := 0
	shape := threeBrokerGroups
	shape.after = func(w *World) {
		for _, e := range w.Events() {
			if strings.Contains(e.Text, fmt.Sprintf("%s-%d leader=", group.Topic, group.PartitionFor("g", 3))) && strings.Contains(e.Text, "elected") {
				moves++
			}
		}
	}
	settled := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		if runGroupSim(t, seed, false, shape) {
			settled++
		}
	}
	t.Logf("%d of %d runs ended with live members; the coordinator moved %d times", settled, seeds, moves)
	if settled < int(seeds)/2 || moves < int(seeds)/4 {
		t.Fatalf("too tame: %d of %d runs ended with live members, %d coordinator moves", settled, seeds, moves)
	}
}
