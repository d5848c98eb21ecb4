//go:build !noquorum

package sim

import (
	"fmt"
	"regexp"
	"testing"
)

// TestFollowerSyncsBeforeItFetches: under a flush policy a follower's
// next fetch, whose offset tells the leader it has the records it just
// appended (and lets the high watermark count it), goes out only after
// those records are synced; when the sync fails it does not go out at
// all, and the follower cuts its log back to its last sync
// (cutToSynced), so that no restart trusts the page cache's copy of
// bytes the disk may not have. The record is acknowledged once the
// controller has taken the failed follower out of the ISR, and the
// follower fetches it again after its restart.
func TestFollowerSyncsBeforeItFetches(t *testing.T) {
	w := New(1)
	execAll(t, w,
		"cluster 3 log.flush.interval.messages=1",
		"topic t partitions=1 rf=3 min.insync.replicas=2",
		"producer p idempotent", "produce p t partition=0 value=a", "advance 1s",
	)
	leader := w.Leader("t", 0)
	var f *Node
	for _, n := range w.Nodes() {
		if n != leader {
			f = n
			break
		}
	}
	out := execAll(t, w, "disk "+f.Name+" fail sync t-0 nth=1 err=EIO", "produce p t partition=0 value=b", "advance 1s")
	if p := partition(f); p.Log().EndOffset() != 1 || !p.Offline() {
		t.Fatalf("%s after its failed sync: log end %d, offline %v; want the log cut back to 1, offline:\n%s", f.Name, p.Log().EndOffset(), p.Offline(), out)
	}
	claimed := regexp.MustCompile(fmt.Sprintf(`(?m)^%s -> %s +Fetch \(replica\) t-0 offset=2 `, f.Name, leader.Name))
	if claimed.MatchString(out) {
		t.Fatalf("%s asked for offset 2, claiming offset 1 its sync lost:\n%s", f.Name, out)
	}
	if !regexp.MustCompile(`(?m)^p +acked t-0 offset 1$`).MatchString(out) {
		t.Fatalf("b was not acknowledged once %s left the ISR:\n%s", f.Name, out)
	}
	execAll(t, w, "disk "+f.Name+" clear", "restart "+f.Name, "advance 15s")
	for _, n := range w.Nodes() {
		if v, ok := valueAt(n, 1); !ok || v != "b" {
			t.Errorf("%s has %q at offset 1, want b", n.Name, v)
		}
	}
}
