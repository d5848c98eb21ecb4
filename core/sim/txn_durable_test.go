//go:build !noquorum

package sim

import (
	"strings"
	"testing"
)

// TestTxnMarkersWaitForTheISR: a transaction coordinator writes its
// markers only once the ISR has its PrepareCommit record (Kafka's
// TransactionStateManager appends with acks=all, and the markers go out in
// the append's callback). Its followers cut off, the coordinator appends
// the Prepare record and waits: no marker reaches t and the producer's
// EndTxn is not answered. Once the network heals and a follower has the
// record, the markers follow and EndTxn succeeds. A coordinator that
// acted on the record at once (coordinator.Host.Durable always true) fails
// the first check: a failover to a follower without the record would
// leave committed markers behind a transaction the new coordinator thinks
// is still open.
func TestTxnMarkersWaitForTheISR(t *testing.T) {
	w := New(1)
	execAll(t, w,
		"cluster 3 transaction.state.log.num.partitions=1 offsets.topic.num.partitions=1 log.flush.interval.messages=1",
		"topic t partitions=1 rf=3",
		"producer p transactional.id=app timeout=60s", "advance 2s",
		"begin p", "produce p t partition=0 value=a", "advance 1s",
	)
	tc := w.Leader("__transaction_state", 0)
	if tc == nil {
		t.Fatal("__transaction_state-0 has no leader")
	}
	out := execAll(t, w, "partition "+tc.Name, "commit p", "advance 2s")
	if !strings.Contains(out, "PREPARE_COMMIT") {
		t.Fatalf("the coordinator wrote no PrepareCommit while cut off:\n%s", out)
	}
	if strings.Contains(out, "WriteTxnMarkers") || strings.Contains(out, "EndTxn NONE") {
		t.Fatalf("markers or an EndTxn answer before the ISR had the PrepareCommit:\n%s", out)
	}
	out = execAll(t, w, "heal", "advance 5s")
	replicated := strings.Index(out, "__transaction_state-0 appended offsets 2..2")
	marker := strings.Index(out, "WriteTxnMarkers COMMIT")
	if replicated < 0 || marker < replicated {
		t.Fatalf("after the heal, want a follower to append the PrepareCommit, then the markers:\n%s", out)
	}
	if !strings.Contains(out, "EndTxn NONE") || !strings.Contains(out, "COMPLETE_COMMIT") {
		t.Fatalf("after the heal, the transaction did not complete:\n%s", out)
	}
}
