//go:build !noquorum

package sim

import (
	"fmt"
	"math/rand/v2"
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
// seed, GROUPSIM_CLUSTER_SEEDS=N runs seeds 1..N). The runs must also have
// moved the coordinator: it counts the elections of the group's
// __consumer_offsets partition.
func TestGroupClusterRandom(t *testing.T) {
	moves, runs := 0, 0
	shape := threeBrokerGroups
	shape.after = func(w *World) {
		runs++
		for _, e := range w.Events() {
			if strings.Contains(e.Text, fmt.Sprintf("%s-%d leader=", group.Topic, group.PartitionFor("g", 3))) && strings.Contains(e.Text, "elected") {
				moves++
			}
		}
	}
	runGroupSims(t, "GROUPSIM_CLUSTER", 20, shape)
	t.Logf("the coordinator moved %d times in %d runs", moves, runs)
	if runs > 1 && moves < runs/4 {
		t.Fatalf("too tame: the coordinator moved %d times in %d runs", moves, runs)
	}
}
