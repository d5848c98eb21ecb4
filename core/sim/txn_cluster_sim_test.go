//go:build !noquorum

package sim

import (
	"math/rand/v2"
	"testing"
)

// threeBrokers runs the transaction simulation on a cluster: t has three
// replicas (min.insync.replicas=2), and so have __transaction_state and
// __consumer_offsets, whose leaders are the coordinators. One broker at a
// time crashes and restarts, so coordinators and partition leaders move
// while transactions run: the producer must find the new coordinator, the
// new coordinator must finish what the old one decided, and markers must
// reach the partitions' new leaders.
var threeBrokers = txnShape{
	setup: []string{
		"cluster 3 log.flush.interval.messages=1 replica.lag.time.max.ms=3000 transaction.state.log.num.partitions=3 offsets.topic.num.partitions=3",
		"topic t partitions=2 rf=3 min.insync.replicas=2",
	},
	crash: func(w *World, rng *rand.Rand) string {
		for _, n := range w.nodes {
			if !n.Up {
				return "restart " + n.Name
			}
		}
		return "crash " + w.nodes[rng.IntN(len(w.nodes))].Name
	},
	leader: func(w *World, idx int32) *Node { return w.Leader("t", idx) },
}

// TestTransactionsClusterRandom checks TestTransactionsRandom's invariants
// on three brokers with coordinator and leader failover
// (TXNSIM_CLUSTER_SEED=N replays one seed, TXNSIM_CLUSTER_SEEDS=N runs
// seeds 1..N).
func TestTransactionsClusterRandom(t *testing.T) { runTxnSims(t, "TXNSIM_CLUSTER", 20, threeBrokers) }

// TestTransactionsClusterRandomTV2 is TestTransactionsClusterRandom with
// producers of transaction version 2: the partition leaders add the
// partitions with AddPartitionsToTxn v5 to remote coordinators.
func TestTransactionsClusterRandomTV2(t *testing.T) {
	shape := threeBrokers
	shape.producer = " tv=2"
	runTxnSims(t, "TXNSIM_CLUSTER_TV2", 20, shape)
}
