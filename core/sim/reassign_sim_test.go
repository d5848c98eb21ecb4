//go:build !noquorum

package sim

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestClusterReassign: t-0 on [A B] (min.insync.replicas=2) moves to
// [S B] while S is down, and then the leader A crashes too: the move
// cannot complete without S in sync, B leads alone and acks=all writes
// wait. S comes back, catches up from B and joins the ISR, which
// completes the move; A comes back, learns it is no longer a replica and
// deletes its log. Every acknowledged record is on S and B at its offset.
// Five brokers, so that the metadata quorum survives two down.
func TestClusterReassign(t *testing.T) {
	w := New(1)
	acks := &ackLog{vals: map[int64]string{}}
	exec := func(lines ...string) string {
		t.Helper()
		out := execAll(t, w, lines...)
		acks.collect(t, w, "p")
		return out
	}
	exec("cluster 5 replica.lag.time.max.ms=3000 log.flush.interval.messages=1",
		"topic t partitions=1 rf=2 min.insync.replicas=2", "advance 1s")
	ip := w.nodes[0].Quorum.Image().Partition("t", 0)
	a, bb := ip.Leader, ip.Replicas[0]+ip.Replicas[1]-ip.Leader
	spare := int32(0)
	for ip.InISR(spare) {
		spare++
	}
	exec("producer p acks=all retries=1000")
	for i := range 5 {
		exec(fmt.Sprintf("produce p t partition=0 value=v%d", i))
	}
	exec(fmt.Sprintf("crash b%d", spare), "advance 15s")
	out := exec(fmt.Sprintf("reassign t-0 replicas=b%d,b%d broker=b%d", spare, bb, bb), "advance 1s")
	if !strings.Contains(out, fmt.Sprintf("(reassigning: adding [b%d], removing [b%d])", spare, a)) {
		t.Fatalf("the move did not start:\n%s", out)
	}
	exec(fmt.Sprintf("crash b%d", a), "advance 15s")
	for i := 5; i < 10; i++ {
		exec(fmt.Sprintf("produce p t partition=0 value=v%d", i))
	}
	exec("advance 5s")
	if p := w.nodes[bb].Quorum.Image().Partition("t", 0); !p.Reassigning() || p.Leader != bb {
		t.Fatalf("with b%d down the move is not waiting, led by b%d: %+v", spare, bb, p)
	}
	if n := len(acks.vals); n != 5 {
		t.Fatalf("%d records acknowledged while b%d led alone with min.insync.replicas=2", n, bb)
	}
	exec(fmt.Sprintf("restart b%d", spare), "advance 30s", fmt.Sprintf("restart b%d", a), "advance 30s")
	out = exec("show replicas t-0")
	p := w.nodes[bb].Quorum.Image().Partition("t", 0)
	if p.Reassigning() || len(p.ISR) != 2 || !p.InISR(spare) || !p.InISR(bb) {
		t.Fatalf("the move did not complete: %+v\n%s", p, out)
	}
	if len(acks.vals) != 10 || acks.unread != 0 {
		t.Fatalf("%d records acknowledged and read back, %d not read back; want 10 and 0", len(acks.vals), acks.unread)
	}
	acks.check(t, w, []int32{spare, bb})
	if leo := partition(w.nodes[a]).Log().EndOffset(); leo != 0 {
		t.Errorf("b%d, removed, still holds %d records", a, leo)
	}
}

var reassignSeed = flag.Uint64("reassign-seed", 0, "replay one seed of TestReassignRandom")

// TestReassignRandom moves t-0 between brokers under random crashes,
// restarts, network partitions and lost messages while an acks=all
// producer writes; once healed, every acknowledged record is on every ISR
// member at its offset, and the last move has completed.
func TestReassignRandom(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 7, 8}
	if *reassignSeed != 0 {
		seeds = []uint64{*reassignSeed}
	}
	moves := 0
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { moves += reassignRun(t, seed) })
	}
	// The moves must have happened, or the checks prove nothing.
	if len(seeds) > 1 && moves == 0 {
		t.Fatal("no reassignment completed in any seed")
	}
	t.Logf("%d reassignments completed", moves)
}

// reassignRun runs one seed and returns how many moves completed.
func reassignRun(t *testing.T, seed uint64) int {
	rng := rand.New(rand.NewPCG(seed, 0x4a55))
	w := New(seed)
	acks := &ackLog{vals: map[int64]string{}}
	exec := func(line string) {
		t.Helper()
		if _, err := w.Exec(line); err != nil {
			t.Fatalf("seed %d: %s: %v\nreplay: go test ./core/sim -run TestReassignRandom -reassign-seed=%d", seed, line, err, seed)
		}
		acks.collect(t, w, "p")
	}
	exec("cluster 4 replica.lag.time.max.ms=3000 log.flush.interval.messages=1")
	exec("topic t partitions=1 rf=2 min.insync.replicas=2")
	exec("producer p acks=all retries=100000")
	next := 0
	for range 80 {
		switch r := rng.IntN(20); {
		case r < 8:
			exec(fmt.Sprintf("produce p t partition=0 value=v%d", next))
			next++
		case r < 12:
			exec(fmt.Sprintf("advance %dms", 100+rng.IntN(3000)))
		case r < 14:
			perm := rng.Perm(4)
			exec(fmt.Sprintf("reassign t-0 replicas=b%d,b%d", perm[0], perm[1]))
		case r < 16:
			n := w.nodes[rng.IntN(4)]
			if n.Up {
				exec("crash " + n.Name)
			} else {
				exec("restart " + n.Name)
			}
		case r < 18:
			if len(w.net.cut) > 0 {
				exec("heal")
			} else {
				exec(fmt.Sprintf("partition b%d", rng.IntN(4)))
			}
		default:
			exec(fmt.Sprintf("fault drop to=b%d", rng.IntN(4)))
		}
	}
	if len(w.net.cut) > 0 {
		exec("heal")
	}
	for _, n := range w.nodes {
		if !n.Up {
			exec("restart " + n.Name)
		}
	}
	exec("advance 60s")
	leader := w.Leader("t", 0)
	if leader == nil {
		t.Fatalf("seed %d: no leader after healing (replay: -reassign-seed=%d)", seed, seed)
	}
	ip := leader.Broker.Image().Partition("t", 0)
	if ip.Reassigning() {
		t.Errorf("seed %d: a move still in progress after healing: %+v (replay: -reassign-seed=%d)", seed, ip, seed)
	}
	if w.UncleanElections() > 0 {
		t.Fatalf("seed %d: an unclean election with unclean.leader.election.enable=false", seed)
	}
	acks.check(t, w, ip.ISR)
	moves := 0
	for _, e := range w.Events() {
		if strings.Contains(e.Text, "(reassignment done)") {
			moves++
		}
	}
	t.Logf("seed %d: %d moves completed, %d acknowledged records checked (%d not read back), replicas now %v", seed, moves, len(acks.vals), acks.unread, ip.Replicas)
	return moves
}

// ackLog is what leaders acknowledged to a producer, by offset, read from
// the acknowledging leader's log when the acknowledgement arrives.
type ackLog struct {
	vals   map[int64]string
	unread int
	seen   int
}

func (l *ackLog) collect(t *testing.T, w *World, name string) {
	t.Helper()
	for _, e := range w.Events()[l.seen:] {
		resp, ok := e.Msg.(*kmsg.ProduceResponse)
		if e.Kind != "deliver" || !ok || e.To != name {
			continue
		}
		pr := resp.Topics[0].Partitions[0]
		if pr.ErrorCode != 0 {
			continue
		}
		n, _ := w.node(e.From)
		v, ok := valueAt(n, pr.BaseOffset)
		if !ok {
			// A delayed answer from a broker that has since crashed
			// or stopped being a replica: the value cannot be read
			// back here, so this record goes unchecked (counted).
			l.unread++
			continue
		}
		l.vals[pr.BaseOffset] = v
	}
	l.seen = len(w.Events())
}

// check fails unless every acknowledged record is on each of ids.
func (l *ackLog) check(t *testing.T, w *World, ids []int32) {
	t.Helper()
	for _, id := range ids {
		for off, v := range l.vals {
			if got, ok := valueAt(w.nodes[id], off); !ok || got != v {
				t.Errorf("b%d offset %d: %q, acknowledged %q", id, off, got, v)
			}
		}
	}
}

// TestClusterControlledShutdown: a leader stopped gracefully (stop,
// KIP-631) ends its process only once the controller has fenced it,
// moved its leadership to another in-sync replica and taken it out of the
// ISR, all in one step; an acks=all write after that goes to the new
// leader and is acknowledged with two in-sync replicas.
func TestClusterControlledShutdown(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 3", "topic t partitions=1 rf=3 min.insync.replicas=2", "advance 2s")
	old := w.nodes[0].Quorum.Image().Partition("t", 0).Leader
	n := w.nodes[old]
	execAll(t, w, "stop "+n.Name)
	if !n.Up || n.Broker.ShutdownReady() {
		t.Fatalf("b%d stopped before the controller answered", old)
	}
	out := execAll(t, w, "advance 1s")
	if n.Up || !strings.Contains(out, "controlled shutdown granted") {
		t.Fatalf("b%d still up 1s into its controlled shutdown:\n%s", old, out)
	}
	p := w.nodes[(old+1)%3].Quorum.Image().Partition("t", 0)
	if p.Leader == old || p.Leader < 0 || p.InISR(old) || len(p.ISR) != 2 {
		t.Fatalf("after b%d's controlled shutdown: %+v", old, p)
	}
	out = execAll(t, w, "producer p acks=all", "produce p t partition=0 value=a", "advance 1s")
	if !strings.Contains(out, "acked t-0 offset 0") {
		t.Fatalf("no write acknowledged after the controlled shutdown:\n%s", out)
	}
}
