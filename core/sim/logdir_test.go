//go:build !noquorum

package sim

import (
	"slices"
	"strings"
	"testing"
)

// TestLogDirFailureInCluster: the leader's fsync fails. It answers
// KAFKA_STORAGE_ERROR, reports its log dir offline in its next heartbeat
// (KIP-858), the controller elects another in-sync replica and takes it
// out of the ISR in one batch, and it halts; the producer's retry lands on
// the new leader, and every acknowledged record is there once the halted
// broker is back.
func TestLogDirFailureInCluster(t *testing.T) {
	w, lead := ackedOnLeader(t, "")
	s := execAll(t, w,
		"disk "+lead.Name+" fail sync t-0",
		"produce p t partition=0 value=b",
		"advance 2s",
	)
	wantAll(t, s,
		"error=KAFKA_STORAGE_ERROR",
		"p            acked t-0 offset 1",
		lead.Name+" log dir offline: it leads nothing and leaves the ISRs",
		"log dir failed: the broker halts",
	)
	if lead.Up {
		t.Fatalf("%s is still up after its log dir failed", lead.Name)
	}
	next := w.Leader("t", 0)
	if next == nil || next == lead {
		t.Fatalf("the leadership did not move from %s", lead.Name)
	}
	if strings.Contains(s, lead.Name+" -> p      Produce t-0 base_offset=1") {
		t.Fatalf("%s acknowledged the record whose sync failed:\n%s", lead.Name, s)
	}
	// Back from its storage's recovery, it follows and rejoins the ISR;
	// the acknowledged records are there, once each.
	s = execAll(t, w,
		"restart "+lead.Name,
		"advance 15s",
		"consumer c",
		"fetch c t-0 offset=0",
	)
	wantAll(t, s, "c            t-0: 0:a 1:b (position 2)")
	if p := w.Nodes()[next.ID].Broker.Image().Partition("t", 0); !slices.Contains(p.ISR, lead.ID) {
		t.Errorf("%s did not rejoin the ISR: %v\n%s", lead.Name, p.ISR, s)
	}
}

// TestControlledShutdownState: a broker stopped gracefully is first put
// in controlled shutdown (KIP-631's BrokerRegistrationChangeRecord): still
// registered and unfenced while its process runs, but no leader and in no
// ISR, and not let back into the ISR; only once it leads nothing is it
// fenced and let go.
func TestControlledShutdownState(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 3", "topic t partitions=1 rf=3 min.insync.replicas=2", "advance 2s")
	old := w.nodes[0].Quorum.Image().Partition("t", 0).Leader
	n := w.nodes[old]
	other := w.nodes[(old+1)%3]
	execAll(t, w, "stop "+n.Name)
	seen := false
	for range 20 {
		execAll(t, w, "advance 50ms")
		im := other.Quorum.Image()
		br := im.Brokers[old]
		if br == nil || !br.InControlledShutdown {
			continue
		}
		if !n.Up {
			break
		}
		if br.Fenced {
			continue // fenced once it leads nothing: let go at the next tick
		}
		seen = true
		if p := im.Partition("t", 0); p.Leader == old || p.InISR(old) || im.Usable(old) || !im.Live(old) {
			t.Fatalf("b%d in controlled shutdown: partition %+v, usable %v, live %v", old, p, im.Usable(old), im.Live(old))
		}
	}
	if !seen {
		t.Fatalf("b%d was never seen up, unfenced and in controlled shutdown", old)
	}
	execAll(t, w, "advance 1s")
	im := other.Quorum.Image()
	if n.Up || !im.Brokers[old].Fenced {
		t.Fatalf("b%d: up %v, registration %+v after its controlled shutdown", old, n.Up, im.Brokers[old])
	}
}

// TestLogDirFailureControllerUnreachable: a broker whose log dir failed
// while it is cut off from the controller keeps trying to tell it, and
// halts without it once log.dir.failure.timeout.ms has passed, not before
// (KIP-858).
func TestLogDirFailureControllerUnreachable(t *testing.T) {
	w, lead := ackedOnLeader(t, " log.dir.failure.timeout.ms=5000")
	s := execAll(t, w,
		"partition "+lead.Name,
		"disk "+lead.Name+" fail sync t-0",
		"produce p t partition=0 value=b",
		"advance 4500ms", // past two heartbeat intervals
	)
	wantAll(t, s, "error=KAFKA_STORAGE_ERROR")
	if !lead.Up {
		t.Fatalf("%s halted before log.dir.failure.timeout.ms:\n%s", lead.Name, s)
	}
	s = execAll(t, w, "advance 1s")
	wantAll(t, s, "the controller was not told within 5000ms")
	if lead.Up {
		t.Fatalf("%s is still up 6s after its log dir failed, cut off from the controller:\n%s", lead.Name, s)
	}
}

// ackedOnLeader starts a three-broker cluster (with the extra settings)
// whose topic t has one acknowledged record, and returns t-0's leader.
func ackedOnLeader(t *testing.T, settings string) (*World, *Node) {
	t.Helper()
	w := New(1)
	s := execAll(t, w,
		"cluster 3 log.flush.interval.messages=1"+settings,
		"topic t partitions=1 rf=3 min.insync.replicas=2",
		"producer p idempotent acks=all",
		"produce p t partition=0 value=a",
		"advance 1s",
	)
	lead := w.Leader("t", 0)
	if lead == nil {
		t.Fatalf("no leader:\n%s", s)
	}
	return w, lead
}
