//go:build !noquorum

package sim

import (
	"strings"
	"testing"
)

// TestClusterFailover: a 3-broker cluster replicates an acks=all record to
// the ISR, loses the leader, elects a follower from the ISR, and the
// returning broker catches up as a follower.
func TestClusterFailover(t *testing.T) {
	w := New(1)
	var out strings.Builder
	for _, l := range []string{
		"cluster 3 replica.lag.time.max.ms=10000",
		"topic t partitions=1 rf=3 min.insync.replicas=2",
		"producer p1 acks=all",
		"produce p1 t partition=0 value=a",
		"advance 1s",
		"crash b1",
		"advance 15s",
		"consumer c1",
		"fetch c1 t-0 offset=0",
		"restart b1",
		"advance 15s",
		"show replicas t-0",
	} {
		o, err := w.Exec(l)
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out.WriteString(o)
	}
	for _, want := range []string{
		"p1           acked t-0 offset 0",
		"t-0 leader=b2 epoch=1 isr=[b2 b0] (leader elected from the ISR)",
		"c1           t-0: 0:a (position 1)",
		"t-0 leader=b2 epoch=1 isr=[b2 b0 b1] (ISR grew)",
		"b1             t-0 leo=1 hw=1 (follower)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in:\n%s", want, out.String())
		}
	}
}
