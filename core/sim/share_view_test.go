package sim_test

import (
	"fmt"
	"testing"

	"github.com/gregor-kafka/gregor/core/view"
)

// The share-groups lesson's share partition, as the state panel draws it:
// after the second poll each worker holds two records; after the locks
// expired both are available again, delivered once; at the end the
// window is empty, the start offset past the four jobs.
func TestShareView(t *testing.T) {
	cells := func(st view.World) string {
		if len(st.Shares) != 1 {
			t.Fatalf("share partitions: %+v", st.Shares)
		}
		s := st.Shares[0]
		out := fmt.Sprintf("%s %s %s start=%d", s.Group, s.Partition, s.Broker, s.Start)
		for _, r := range s.Records {
			out += fmt.Sprintf(" %d:%s/%s/%d/%d", r.Offset, r.State, r.Owner, r.LockMs, r.Count)
		}
		return out
	}
	for _, tc := range []struct {
		step int
		want string
	}{
		{9, "workers jobs-0 b0 start=0 0:acquired/w1/15000/1 1:acquired/w1/15000/1 2:acquired/w2/15000/1 3:acquired/w2/15000/1"},
		{12, "workers jobs-0 b0 start=2 2:available//0/1 3:available//0/1"},
		{20, "workers jobs-0 b0 start=4"},
	} {
		if got := cells(at(t, "share-groups", tc.step)); got != tc.want {
			t.Errorf("after step %d:\n got %s\nwant %s", tc.step, got, tc.want)
		}
	}
}
