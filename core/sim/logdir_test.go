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
	w := New(1)
	s := execAll(t, w,
		"cluster 3 log.flush.interval.messages=1",
		"topic t partitions=1 rf=3 min.insync.replicas=2",
		"producer p idempotent acks=all",
		"produce p t partition=0 value=a",
		"advance 1s",
	)
	lead := w.Leader("t", 0)
	if lead == nil {
		t.Fatalf("no leader:\n%s", s)
	}
	s = execAll(t, w,
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
