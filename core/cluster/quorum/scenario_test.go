package quorum

import (
	"github.com/gregor-kafka/gregor/core/cluster"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

func scenarioConfig() Config {
	return Config{ElectionTicks: 10, HeartbeatTicks: 1, SessionTicks: 12, SnapshotEvery: 64}
}

// threeBrokers starts a 3-node quorum and 3 brokers, and waits until the
// brokers are registered and unfenced.
func threeBrokers(t *testing.T, cfg Config) *harness {
	h := newHarness(t, 1, 3, cfg)
	h.runUntil(200, "a controller elected", func() bool { return h.controller() != nil })
	for _, id := range []int32{1, 2, 3} {
		h.addBroker(id)
	}
	h.runUntil(200, "all brokers unfenced", h.allUnfenced)
	return h
}

func TestCreateTopicPlacement(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("orders", 6, 3, nil)
	h.run(5)
	h.agree()
	im := h.controller().Image()
	tp := im.Topics["orders"]
	if tp == nil || len(tp.Partitions) != 6 {
		t.Fatalf("topic: %+v", tp)
	}
	brokers := []int32{1, 2, 3}
	start := slices.Index(brokers, tp.Partitions[0].Replicas[0])
	for i, p := range tp.Partitions {
		for j, r := range p.Replicas {
			if want := brokers[(start+i+j)%3]; r != want {
				t.Errorf("partition %d replica %d = %d, want broker (start+i+j) mod n = %d", i, j, r, want)
			}
		}
		if p.Leader != p.Replicas[0] || !slices.Equal(p.ISR, p.Replicas) || p.LeaderEpoch != 0 || p.PartitionEpoch != 0 {
			t.Errorf("partition %d: %+v", i, p)
		}
	}
}

func TestFencedLeaderMovesToISR(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 1, 3, nil)
	before := h.controller().Image().Partition("t", 0).Clone()
	h.stopBroker(before.Leader)
	h.runUntil(100, "leader moved", func() bool { return h.controller().Image().Partition("t", 0).Leader != before.Leader })
	h.run(3)
	h.agree()
	after := h.controller().Image().Partition("t", 0)
	if want := before.Replicas[1]; after.Leader != want {
		t.Errorf("new leader %d, want the next ISR member in replica order %d", after.Leader, want)
	}
	if after.LeaderEpoch != before.LeaderEpoch+1 {
		t.Errorf("leader epoch %d -> %d", before.LeaderEpoch, after.LeaderEpoch)
	}
	if after.InISR(before.Leader) || len(after.ISR) != 2 {
		t.Errorf("ISR %v still has fenced %d", after.ISR, before.Leader)
	}
	if !h.controller().Image().Brokers[before.Leader].Fenced {
		t.Errorf("broker %d not fenced", before.Leader)
	}
}

// shrinkToLeader makes the leader of t-0 shrink its ISR to itself, and
// checks AlterPartition's epoch rules on the way.
func shrinkToLeader(t *testing.T, h *harness) *cluster.Partition {
	p := h.controller().Image().Partition("t", 0).Clone()
	if code := h.alterISR("t", 0, p.LeaderEpoch, p.PartitionEpoch+1, []int32{p.Leader}, 0); code != kerr.InvalidUpdateVersion.Code {
		t.Fatalf("future partition epoch: %v", kerr.ErrorForCode(code))
	}
	if code := h.alterISR("t", 0, p.LeaderEpoch+1, p.PartitionEpoch, []int32{p.Leader}, 0); code != kerr.FencedLeaderEpoch.Code {
		t.Fatalf("wrong leader epoch: %v", kerr.ErrorForCode(code))
	}
	if code := h.alterISR("t", 0, p.LeaderEpoch, p.PartitionEpoch, []int32{p.Replicas[1]}, 0); code != kerr.InvalidRequest.Code {
		t.Fatalf("ISR without the leader: %v", kerr.ErrorForCode(code))
	}
	if code := h.alterISR("t", 0, p.LeaderEpoch, p.PartitionEpoch, []int32{p.Leader}, 0); code != 0 {
		t.Fatalf("shrink: %v", kerr.ErrorForCode(code))
	}
	got := h.controller().Image().Partition("t", 0)
	if !slices.Equal(got.ISR, []int32{p.Leader}) || got.PartitionEpoch != p.PartitionEpoch+1 || got.LeaderEpoch != p.LeaderEpoch {
		t.Fatalf("after shrink: %+v", got)
	}
	// The same request again is now stale.
	if code := h.alterISR("t", 0, p.LeaderEpoch, p.PartitionEpoch, []int32{p.Leader}, 0); code != kerr.InvalidUpdateVersion.Code {
		t.Fatalf("stale partition epoch: %v", kerr.ErrorForCode(code))
	}
	return got.Clone()
}

func TestCleanElectionLeavesPartitionOffline(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 1, 3, nil)
	p := shrinkToLeader(t, h)
	h.stopBroker(p.Leader)
	h.runUntil(100, "partition offline", func() bool { return h.controller().Image().Partition("t", 0).Leader == cluster.NoLeader })
	h.run(60) // stays offline: nobody else is in sync
	h.agree()
	off := h.controller().Image().Partition("t", 0).Clone()
	if off.Leader != cluster.NoLeader || !slices.Equal(off.ISR, []int32{p.Leader}) || off.LeaderEpoch != p.LeaderEpoch+1 {
		t.Fatalf("offline partition: %+v", off)
	}
	h.startBroker(p.Leader)
	h.runUntil(100, "old leader back", func() bool { return h.controller().Image().Partition("t", 0).Leader == p.Leader })
	back := h.controller().Image().Partition("t", 0)
	if back.LeaderEpoch != off.LeaderEpoch+1 || back.Recovering {
		t.Fatalf("back: %+v", back)
	}
	// The returned leader adds the others back as they catch up.
	if code := h.alterISR("t", 0, back.LeaderEpoch, back.PartitionEpoch, back.Replicas, 0); code != 0 {
		t.Fatalf("expand: %v", kerr.ErrorForCode(code))
	}
	h.run(3)
	h.agree()
}

func TestUncleanElectionChoosesOutOfSyncReplica(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 1, 3, map[string]string{"unclean.leader.election.enable": "true", "min.insync.replicas": "2"})
	if im := h.controller().Image(); im.MinInsyncReplicas("t", 1) != 2 || !im.UncleanLeaderElection("t", false) {
		t.Fatalf("configs: %+v", im.Topics["t"].Configs)
	}
	p := shrinkToLeader(t, h)
	var unclean []cluster.PartitionDelta
	h.onDelta = func(node uint64, d cluster.PartitionDelta, _ *cluster.Image) {
		if node == 1 && d.Unclean {
			unclean = append(unclean, d)
		}
	}
	h.stopBroker(p.Leader)
	h.runUntil(100, "unclean leader", func() bool {
		l := h.controller().Image().Partition("t", 0).Leader
		return l != p.Leader && l != cluster.NoLeader
	})
	h.run(3)
	h.agree()
	got := h.controller().Image().Partition("t", 0)
	if want := p.Replicas[1]; got.Leader != want || !slices.Equal(got.ISR, []int32{want}) || !got.Recovering {
		t.Fatalf("unclean: %+v, want leader %d alone in the ISR, recovering", got, want)
	}
	if len(unclean) != 1 || unclean[0].Before.InISR(got.Leader) {
		t.Fatalf("unclean deltas: %+v", unclean)
	}
	// While recovering the ISR may not grow; once recovered it may.
	if code := h.alterISR("t", 0, got.LeaderEpoch, got.PartitionEpoch, []int32{got.Leader, p.Replicas[2]}, 1); code != kerr.InvalidRequest.Code {
		t.Fatalf("grow while recovering: %v", kerr.ErrorForCode(code))
	}
	if code := h.alterISR("t", 0, got.LeaderEpoch, got.PartitionEpoch, []int32{got.Leader}, 0); code != 0 {
		t.Fatalf("recovered: %v", kerr.ErrorForCode(code))
	}
	if h.controller().Image().Partition("t", 0).Recovering {
		t.Fatal("still recovering")
	}
}

func TestControllerFailover(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("a", 3, 3, nil)
	old := h.controller().ID()
	h.crash(old)
	h.runUntil(200, "a new controller", func() bool { c := h.controller(); return c != nil && c.ID() != old })
	h.run(40) // brokers keep their sessions with the new controller
	if !h.allUnfenced() {
		t.Fatal("brokers fenced across a controller failover")
	}
	h.createTopic("b", 2, 2, nil)
	h.restart(old)
	h.runUntil(200, "old controller caught up", func() bool {
		return h.nodes[old].Image().Topics["b"] != nil
	})
	h.run(5)
	h.agree()
}

func TestRestartFromStorage(t *testing.T) {
	cfg := scenarioConfig()
	cfg.SnapshotEvery = 8 // snapshots and compaction happen
	h := threeBrokers(t, cfg)
	for _, name := range []string{"a", "b", "c", "d"} {
		h.createTopic(name, 2, 3, nil)
	}
	h.run(5)
	for _, id := range h.ids {
		h.crash(id)
	}
	for _, id := range h.ids {
		h.restart(id)
	}
	h.runUntil(200, "controller after full restart", func() bool { return h.controller() != nil })
	h.run(20)
	h.agree()
	if n := len(h.controller().Image().Topics); n != 4 {
		t.Fatalf("%d topics after restart", n)
	}
}
