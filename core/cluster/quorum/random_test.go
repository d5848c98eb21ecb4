package quorum

import (
	"flag"
	"fmt"
	"github.com/gregor-kafka/gregor/core/cluster"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

var (
	seedFlag  = flag.Uint64("seed", 0, "replay one seed of the randomized cluster test")
	seedsFlag = flag.Int("seeds", 30, "how many seeds the randomized cluster test runs")
)

// TestRandomized runs the quorum, brokers and controller through random
// message loss, delays, partitions, node crashes and restarts (with what
// was synced to storage) and broker crashes, while leaders randomly shrink
// and grow ISRs, some with stale epochs, and topics are created, grown,
// deleted and created again under the same names. The harness checks, on every
// Process of every node, that:
//
//   - all nodes apply the same entry at each raft index, and reach the
//     same image at each index (raft safety of the metadata);
//   - leader epochs never decrease and partition epochs strictly increase;
//     a leader change bumps the leader epoch by exactly one;
//   - a partition's leader is in its ISR or is NoLeader;
//   - a leader from outside the previous ISR is chosen only by an
//     election marked unclean, on a topic that allows it.
//
// Finally the faults stop and the cluster must converge: a controller,
// every node at the same image, every broker unfenced, every partition
// led. A failure prints its seed; -seed=N replays it.
func TestRandomized(t *testing.T) {
	seeds := make([]uint64, 0, *seedsFlag)
	if *seedFlag != 0 {
		seeds = append(seeds, *seedFlag)
	} else {
		for i := range *seedsFlag {
			seeds = append(seeds, uint64(i+1))
		}
	}
	if testing.Short() && len(seeds) > 5 {
		seeds = seeds[:5]
	}
	var st faultStats
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomRunStats(t, seed, st.observe) })
	}
	t.Logf("node 1 applied: %+v", st)
	// Guard against a harness that stopped exercising anything.
	if len(seeds) >= 20 && (st.Unclean == 0 || st.Offline == 0 || st.Skipped == 0 || st.Snapshots == 0 || st.Removed == 0) {
		t.Errorf("the faults no longer reach every path: %+v", st)
	}
}

// faultStats counts what the randomized runs made happen.
type faultStats struct {
	LeaderChanges, Offline, Unclean, Skipped, Snapshots, Removed int
}

func (s *faultStats) observe(a Applied) {
	if a.Snapshot {
		s.Snapshots++
	}
	for _, e := range a.Errs {
		if e != nil {
			s.Skipped++
		}
	}
	for _, d := range a.Deltas {
		if d.After == nil {
			s.Removed++
		}
		if d.Before == nil || d.After == nil || d.After.Leader == d.Before.Leader {
			continue
		}
		s.LeaderChanges++
		if d.Unclean {
			s.Unclean++
		}
		if d.After.Leader == cluster.NoLeader {
			s.Offline++
		}
	}
}

func randomRun(t *testing.T, seed uint64) *harness { return randomRunStats(t, seed, nil) }

func randomRunStats(t *testing.T, seed uint64, observe func(Applied)) *harness {
	cfg := Config{ElectionTicks: 8, HeartbeatTicks: 1, SessionTicks: 10, SnapshotEvery: 16,
		UncleanDefault: seed%2 == 0}
	h := newHarness(t, seed, 3, cfg)
	h.observe = observe
	h.maxDelay = 2
	for _, id := range []int32{1, 2, 3, 4} {
		h.addBroker(id)
	}
	rng := h.rng
	for range 1500 {
		switch x := rng.IntN(1000); {
		case x < 8:
			h.crash(h.ids[rng.IntN(len(h.ids))])
		case x < 30:
			h.restart(h.ids[rng.IntN(len(h.ids))])
		case x < 36:
			h.isolate(h.ids[rng.IntN(len(h.ids))])
		case x < 56:
			h.heal()
		case x < 62:
			h.drop = []float64{0, 0.05, 0.2, 0.5}[rng.IntN(4)]
		case x < 70:
			h.stopBroker(int32(1 + rng.IntN(4)))
		case x < 90:
			if id := int32(1 + rng.IntN(4)); !h.brokers[id].up {
				h.startBroker(id)
			}
		case x < 100:
			// From a pool of names, so deleted topics are created again.
			req := kmsg.NewPtrCreateTopicsRequest()
			tp := kmsg.NewCreateTopicsRequestTopic()
			tp.Topic, tp.NumPartitions, tp.ReplicationFactor = fmt.Sprintf("t%d", 1+rng.IntN(6)), int32(1+rng.IntN(3)), int16(1+rng.IntN(3))
			if rng.IntN(3) == 0 {
				cfg := kmsg.NewCreateTopicsRequestTopicConfig()
				cfg.Name, cfg.Value = "unclean.leader.election.enable", new(fmt.Sprint(rng.IntN(2) == 0))
				tp.Configs = append(tp.Configs, cfg)
			}
			req.Topics = append(req.Topics, tp)
			h.submit(req, nil)
		case x < 103:
			randomTopicChange(h, true)
		case x < 105:
			randomTopicChange(h, false)
		case x < 250:
			randomAlter(h)
		}
		h.tick()
	}
	// Faults stop; the cluster must converge.
	h.heal()
	h.drop, h.maxDelay = 0, 0
	for _, id := range h.ids {
		h.restart(id)
	}
	for id, b := range h.brokers {
		if !b.up {
			h.startBroker(id)
		}
	}
	h.runUntil(600, "converged", func() bool {
		c := h.controller()
		if c == nil || !h.allUnfenced() {
			return false
		}
		for _, id := range h.ids {
			if h.nodes[id].Image().Index != c.Image().Index {
				return false
			}
		}
		im := c.Image()
		for _, name := range im.TopicNames() {
			for _, p := range im.Topics[name].Partitions {
				if p.Leader == cluster.NoLeader {
					return false
				}
			}
		}
		return true
	})
	h.agree()
	return h
}

// TestRandomizedIsDeterministic runs one seed twice: the same seed must
// give the same run, entry for entry.
func TestRandomizedIsDeterministic(t *testing.T) {
	trace := func() string {
		h := randomRun(t, 7)
		keys := make([]uint64, 0, len(h.entries))
		for k := range h.entries {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		s := fmt.Sprint(h.now, len(h.queue))
		for _, k := range keys {
			s += fmt.Sprintf(" %d:%s", k, h.entries[k][:8])
		}
		return s + string(h.controller().Image().Encode())
	}
	if a, b := trace(), trace(); a != b {
		t.Fatalf("seed 7 ran differently twice:\n%s\n%s", a, b)
	}
}

// randomTopicChange adds one or two partitions to a random topic, or
// deletes it, through the controller.
func randomTopicChange(h *harness, grow bool) {
	c := h.controller()
	if c == nil {
		return
	}
	im := c.Image()
	names := im.TopicNames()
	if len(names) == 0 {
		return
	}
	name := names[h.rng.IntN(len(names))]
	if !grow {
		h.submit(deleteTopicsReq(6, byName(name)), nil)
		return
	}
	count := int32(len(im.Topics[name].Partitions) + 1 + h.rng.IntN(2))
	h.submit(createPartitionsReq(false, growTo(name, count)), nil)
}

// randomAlter has a random partition's leader (as the controller's image
// has it) shrink or grow the ISR, sometimes with stale epochs.
func randomAlter(h *harness) {
	c := h.controller()
	if c == nil {
		return
	}
	im := c.Image()
	names := im.TopicNames()
	if len(names) == 0 {
		return
	}
	rng := h.rng
	name := names[rng.IntN(len(names))]
	parts := im.Topics[name].Partitions
	pi := rng.IntN(len(parts))
	p := parts[pi]
	if p.Leader == cluster.NoLeader || !h.brokers[p.Leader].up {
		return
	}
	isr := slices.Clone(p.ISR)
	if rng.IntN(2) == 0 && len(isr) > 1 {
		i := rng.IntN(len(isr))
		if isr[i] != p.Leader {
			isr = slices.Delete(isr, i, i+1)
		}
	} else {
		for _, r := range p.Replicas {
			if !slices.Contains(isr, r) && h.brokers[r].up {
				isr = append(isr, r)
				break
			}
		}
	}
	le, pe := p.LeaderEpoch, p.PartitionEpoch
	if rng.IntN(5) == 0 {
		pe-- // a leader working from an old state
	}
	var recovery int8
	if p.Recovering && rng.IntN(2) == 0 {
		recovery, isr = 1, []int32{p.Leader}
	}
	b := im.Brokers[p.Leader]
	req := kmsg.NewPtrAlterPartitionRequest()
	req.BrokerID, req.BrokerEpoch = b.ID, b.Epoch
	rt := kmsg.NewAlterPartitionRequestTopic()
	rt.TopicID = im.Topics[name].ID
	rp := kmsg.NewAlterPartitionRequestTopicPartition()
	rp.Partition, rp.LeaderEpoch, rp.PartitionEpoch, rp.NewISR, rp.LeaderRecoveryState = int32(pi), le, pe, isr, recovery
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	h.submit(req, nil)
}
