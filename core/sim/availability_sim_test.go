//go:build !noquorum

package sim

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

// availabilityBound is how long, in simulated time, a healed and quiet
// cluster may take to give every partition a leader and a full ISR and to
// acknowledge an acks=all write to each: a controller election (at most
// 2 s of raft timeouts), a broker's registration or unfencing (a
// heartbeat, 2 s), and a follower's truncation and catch-up (a few fetch
// timeouts of 1.5 s) fit in it; a lost request waiting for
// replica.socket.timeout.ms (30 s) does not. 1000 seeds take at most
// 2.6 s.
const availabilityBound = 10_000

// TestAvailabilityRandom runs clusters with Kafka's default timeouts
// through random network partitions, crashes and restarts, lost and
// delayed messages, while acks=all producers write; then heals everything
// and checks availability as an invariant with a bound: within
// availabilityBound of simulated time every partition has a leader and
// all its replicas in the ISR, in every broker's metadata, and an acks=all
// write to each partition is acknowledged. GREGOR_AVAIL_SEEDS=N runs
// seeds 1 to N; -run 'TestAvailabilityRandom/7' replays seed 7.
func TestAvailabilityRandom(t *testing.T) {
	n := uint64(20)
	if testing.Short() {
		n = 5
	}
	if v, err := strconv.ParseUint(os.Getenv("GREGOR_AVAIL_SEEDS"), 10, 64); err == nil {
		n = v
	}
	worst, faults, ran := int64(0), 0, 0
	for seed := uint64(1); seed <= n; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			took, f := availabilityRun(t, seed)
			worst, faults, ran = max(worst, took), faults+f, ran+1
		})
	}
	if ran > 1 && faults == 0 {
		t.Fatalf("%d seeds cut, crashed or fenced nothing: the faults did not bite", n)
	}
	t.Logf("%d seeds, %d brokers fenced: available again at most %dms after healing (bound %dms)", ran, faults, worst, availabilityBound)
}

// availabilityRun runs one seed and returns how long the cluster took to
// be available once healed, and how many brokers the faults fenced.
func availabilityRun(t *testing.T, seed uint64) (int64, int) {
	rng := rand.New(rand.NewPCG(seed, 0xa7a1))
	w := New(seed)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("seed %d at %dms: %s\nreplay: go test ./core/sim -run 'TestAvailabilityRandom/^%d$' -v", seed, w.Now(), fmt.Sprintf(format, args...), seed)
	}
	var out strings.Builder
	exec := func(line string) {
		t.Helper()
		o, err := w.Exec(line)
		if err != nil {
			fail("%s: %v", line, err)
		}
		out.WriteString(o)
	}
	exec("cluster 3")
	exec("topic t partitions=3 rf=3 min.insync.replicas=2")
	exec("producer p idempotent retries=100000")
	for i := range 60 {
		switch r := rng.IntN(20); {
		case r < 7:
			exec(fmt.Sprintf("produce p t partition=%d value=v%d", rng.IntN(3), i))
		case r < 12:
			exec(fmt.Sprintf("advance %dms", 100+rng.IntN(6000)))
		case r < 14:
			var down []string
			for _, n := range w.Nodes() {
				if !n.Up {
					down = append(down, n.Name)
				}
			}
			if len(down) > 0 {
				exec("restart " + down[rng.IntN(len(down))])
			} else {
				exec(fmt.Sprintf("crash b%d", rng.IntN(3)))
			}
		case r < 16:
			exec(fmt.Sprintf("fault drop to=b%d", rng.IntN(3)))
		case r < 17:
			exec(fmt.Sprintf("fault delay=%dms from=b%d", 50+rng.IntN(2000), rng.IntN(3)))
		default:
			if len(w.net.cut) > 0 {
				exec("heal")
			} else {
				exec(fmt.Sprintf("partition b%d", rng.IntN(3)))
			}
		}
	}
	if len(w.net.cut) > 0 {
		exec("heal")
	}
	for _, n := range w.Nodes() {
		if !n.Up {
			exec("restart " + n.Name)
		}
	}
	// Quiet from here: no faults (those armed and not yet fired are
	// disarmed), one acks=all write per partition.
	w.net.faults = nil
	healed, mark := w.Now(), out.Len()
	exec("producer q acks=all retries=1000")
	for i := range 3 {
		exec(fmt.Sprintf("produce q t partition=%d value=after", i))
	}
	for !fullISRs(w, "t") || strings.Count(out.String(), "q            acked t-") < 3 {
		if w.Now()-healed > availabilityBound {
			var state strings.Builder
			for i := range 3 {
				o, _ := w.Exec(fmt.Sprintf("show replicas t-%d", i))
				state.WriteString(o)
			}
			for _, l := range strings.Split(out.String()[mark:], "\n") {
				if strings.HasPrefix(l, "q ") || strings.Contains(l, "-> q") || strings.HasPrefix(l, "quorum") {
					state.WriteString(l + "\n")
				}
			}
			fail("not available %dms after healing:\n%s", availabilityBound, state.String())
		}
		exec("advance 100ms")
	}
	if took := w.Now() - healed; took > availabilityBound/2 {
		t.Logf("seed %d: available %dms after healing", seed, took)
	}
	return w.Now() - healed, len(quorumLines(out.String(), " fenced"))
}
