//go:build !noquorum

package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCutOffBrokerFencedAlone cuts one broker off from the others for
// 20 s, at several phases of the heartbeat cycle, with Kafka's default
// timeouts: the leader of t-0 (not the controller), and the node hosting
// the active controller. In both cases only the cut-off broker is fenced,
// the batch that fences it elects new leaders from the ISR (no partition
// is ever offline), and within a few seconds of the heal it is unfenced
// and back in every ISR. Before brokers re-sent what they had asked a
// controller that moved away (Broker.ControllerMoved), a heartbeat lost
// with the cut-off controller held the next one back for 30 s: every
// broker was fenced and every partition went offline (issue 17).
func TestCutOffBrokerFencedAlone(t *testing.T) {
	for _, who := range []string{"leader", "controller"} {
		for _, phase := range []int{0, 500, 1000, 1500} {
			t.Run(fmt.Sprintf("%s/%dms", who, phase), func(t *testing.T) {
				w := New(1)
				execAll(t, w, "cluster 3", "topic t partitions=3 rf=3 min.insync.replicas=2",
					fmt.Sprintf("advance %dms", phase))
				cut := w.controllerName()
				if who == "leader" {
					cut = w.Leader("t", 0).Name
					if cut == w.controllerName() {
						t.Fatalf("seed 1 puts t-0's leader on the controller %s: pick another partition", cut)
					}
				}
				start := w.Now()
				out := execAll(t, w, "partition "+cut, "advance 20s")
				fenced := quorumLines(out, " fenced")
				if len(fenced) != 1 || !strings.Contains(fenced[0], cut+" fenced") {
					t.Fatalf("cutting %s off fenced %v:\n%s", cut, fenced, out)
				}
				if off := quorumLines(out, "offline"); len(off) > 0 {
					t.Fatalf("partitions went offline: %v", off)
				}
				if w.Leader("t", 0).Name == cut {
					t.Fatalf("t-0 still led by the cut-off %s", cut)
				}
				execAll(t, w, "heal")
				healed := w.Now()
				for !fullISRs(w, "t") {
					if w.Now()-healed > 6000 {
						t.Fatalf("cut at %d, healed at %d: ISRs not full 6 s later:\n%s", start, healed, execAll(t, w, "show replicas t-0"))
					}
					execAll(t, w, "advance 100ms")
				}
			})
		}
	}
}

// quorumLines returns the quorum's lines of out that contain s.
func quorumLines(out, s string) []string {
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "quorum") && strings.Contains(l, s) {
			got = append(got, strings.Join(strings.Fields(l), " "))
		}
	}
	return got
}

// fullISRs: in every up node's image, every partition of topic has a
// leader and all its replicas in the ISR.
func fullISRs(w *World, topic string) bool {
	for _, n := range w.Nodes() {
		if !n.Up {
			continue
		}
		t := n.Quorum.Image().Topics[topic]
		if t == nil {
			return false
		}
		for _, p := range t.Partitions {
			if p.Leader < 0 || len(p.ISR) != len(p.Replicas) {
				return false
			}
			for _, r := range p.Replicas {
				if !slices.Contains(p.ISR, r) {
					return false
				}
			}
		}
	}
	return true
}

// TestPreferredLeaderRebalance: cutting a broker off moves its partitions'
// leadership to the others, and nothing but the controller's preferred
// leader election (auto.leader.rebalance.enable) moves it back: within a
// check interval of the broker's return, each partition is led by its
// first replica again, at a new leader epoch, and acks=all writes go on.
// With the setting off, leadership stays where the failure left it.
func TestPreferredLeaderRebalance(t *testing.T) {
	for _, enabled := range []bool{true, false} {
		t.Run(fmt.Sprint(enabled), func(t *testing.T) {
			w := New(1)
			execAll(t, w, fmt.Sprintf("cluster 3 leader.imbalance.check.interval.seconds=30 auto.leader.rebalance.enable=%v", enabled),
				"topic t partitions=3 rf=3 min.insync.replicas=2", "producer p acks=all")
			preferred := map[int32]string{}
			for i := range int32(3) {
				preferred[i] = w.Leader("t", i).Name
			}
			victim := preferred[0]
			execAll(t, w, "partition "+victim, "advance 15s", "heal", "advance 10s")
			if w.Leader("t", 0).Name == victim {
				t.Fatalf("t-0 still led by %s after it was cut off", victim)
			}
			out := execAll(t, w, "advance 40s", "produce p t partition=0 value=x", "advance 1s")
			moved := quorumLines(out, "(preferred leader elected)")
			if !enabled {
				if len(moved) > 0 || w.Leader("t", 0).Name == victim {
					t.Fatalf("leadership moved back with auto.leader.rebalance.enable=false: %v", moved)
				}
				return
			}
			if len(moved) != 1 || !strings.Contains(moved[0], "t-0 leader="+victim+" epoch=2") {
				t.Fatalf("want t-0 back on %s at epoch 2, got %v:\n%s", victim, moved, out)
			}
			for i := range int32(3) {
				if got := w.Leader("t", i).Name; got != preferred[i] {
					t.Errorf("t-%d led by %s, preferred %s", i, got, preferred[i])
				}
			}
			if !strings.Contains(out, "acked t-0") {
				t.Errorf("acks=all write to t-0 after the rebalance not acknowledged:\n%s", out)
			}
		})
	}
}
