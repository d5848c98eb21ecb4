package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// script drives a world through a run with faults and a crash.
var script = []string{
	"broker log.segment.bytes=400",
	"topic t partitions=2",
	"producer p1 idempotent",
	"producer p2 acks=1 retries=2",
	"fault drop response to=p1",
	"produce p1 t key=a value=x count=3",
	"fault duplicate request from=p2",
	"produce p2 t key=b value=y count=3",
	"advance 31s",
	"crash b0",
	"restart b0",
	"consumer c1",
	"fetch c1 t-0 offset=0",
	"fetch c1 t-1 offset=0",
}

func run(seed uint64, cmds []string) string {
	w := New(seed)
	var sb strings.Builder
	for _, c := range cmds {
		out, err := w.Exec(c)
		fmt.Fprintf(&sb, "> %s\n%s%v\n", c, out, err)
	}
	return sb.String()
}

// TestDeterministic: the same seed and commands give the same run, byte for
// byte (design rule 5).
func TestDeterministic(t *testing.T) {
	a, b := run(7, script), run(7, script)
	if a != b {
		t.Fatalf("two runs with seed 7 differ:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a, "(dropped)") || !strings.Contains(a, "(duplicated)") || !strings.Contains(a, "restarted") {
		t.Fatalf("the script did not exercise its faults:\n%s", a)
	}
}

// TestRandomFaults runs random command mixes with random faults over many
// seeds and checks invariants after every step: the high watermark never
// exceeds the log end offset, and a broker that is up answers.
func TestRandomFaults(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		w := New(seed)
		cmds := []string{"broker log.segment.bytes=300", "topic t partitions=2", "producer p1 idempotent", "producer p2 acks=1", "consumer c1"}
		for i := 0; i < 60; i++ {
			switch rng.IntN(9) {
			case 0:
				cmds = append(cmds, "fault drop response")
			case 1:
				cmds = append(cmds, "fault duplicate request")
			case 2:
				cmds = append(cmds, fmt.Sprintf("fault delay=%dms", rng.IntN(5000)))
			case 3:
				cmds = append(cmds, fmt.Sprintf("advance %dms", rng.IntN(40000)))
			case 4:
				cmds = append(cmds, "crash b0", "restart b0")
			case 5:
				cmds = append(cmds, fmt.Sprintf("fetch c1 t-%d offset=0", rng.IntN(2)))
			default:
				cmds = append(cmds, fmt.Sprintf("produce p%d t key=k%d value=v%d", 1+rng.IntN(2), rng.IntN(5), i))
			}
		}
		for _, c := range cmds {
			if _, err := w.Exec(c); err != nil && !strings.Contains(err.Error(), "already") {
				t.Fatalf("seed %d: %s: %v", seed, c, err)
			}
			for _, n := range w.Nodes() {
				if !n.Up {
					continue
				}
				for _, tp := range n.Broker.Topics() {
					for _, p := range tp.Partitions {
						if p.HighWatermark > p.Log().EndOffset() {
							t.Fatalf("seed %d after %q: %s hw %d > leo %d", seed, c, p, p.HighWatermark, p.Log().EndOffset())
						}
					}
				}
			}
		}
	}
}

// execAll runs simulator commands, failing the test on the first one
// refused, and returns their output.
func execAll(t *testing.T, w *World, lines ...string) string {
	t.Helper()
	var out strings.Builder
	for _, l := range lines {
		o, err := w.Exec(l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out.WriteString(o)
	}
	return out.String()
}
