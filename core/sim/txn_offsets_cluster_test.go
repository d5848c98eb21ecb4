//go:build !noquorum

package sim

import (
	"strings"
	"testing"
)

// Errors of a TxnOffsetCommit v5 (transaction version 2, KIP-890 part 2)
// whose implicit add cannot reach the transaction coordinator. The group
// coordinator answers them as Kafka's does: the verification's error goes
// through CoordinatorOperationExceptionHelper.handleOperationException
// (COORDINATOR_NOT_AVAILABLE when the coordinator has no leader,
// NETWORK_EXCEPTION made COORDINATOR_LOAD_IN_PROGRESS when it did not
// answer), never NOT_ENOUGH_REPLICAS, which only Produce answers
// (ReplicaManager.handleProduceAppend). franz-go's GroupTransactSession
// aborts and retries on the first two and surfaces the third.

// txnOffsetsCluster starts three brokers where __transaction_state has one
// replica, on b0, and __consumer_offsets three, led by b1: killing b0
// takes the transaction coordinator away and leaves the group
// coordinator. A first transaction commits offsets 1 through both.
func txnOffsetsCluster(t *testing.T) *World {
	t.Helper()
	w := New(1)
	execAll(t, w,
		"cluster 3 transaction.state.log.num.partitions=1 transaction.state.log.replication.factor=1 transaction.state.log.min.isr=1"+
			" offsets.topic.num.partitions=1 log.flush.interval.messages=1 replica.socket.timeout.ms=5000",
		"topic t partitions=1 rf=3",
		"producer p transactional.id=app timeout=60s tv=2", "advance 2s",
		"begin p", "produce p t partition=0 value=a", "send-offsets p group=g t-0=1", "commit p", "advance 1s",
	)
	if tc, gc := w.Leader("__transaction_state", 0), w.Leader("__consumer_offsets", 0); tc == nil || gc == nil || tc.Name != "b0" || gc.Name != "b1" {
		t.Fatalf("transaction coordinator %v, group coordinator %v: want b0 and b1", tc, gc)
	}
	return w
}

// TestTxnOffsetCommitV5CoordinatorOffline: the transaction coordinator's
// partition has no leader. AddPartitionsToTxnManager.addOrVerifyTransaction
// answers COORDINATOR_NOT_AVAILABLE, which the TxnOffsetCommit carries
// (the producer looks the group coordinator up again and retries), while
// a Produce v12 on the same broker turns it into NOT_ENOUGH_REPLICAS. Once
// the coordinator is back the offsets commit with the transaction.
func TestTxnOffsetCommitV5CoordinatorOffline(t *testing.T) {
	w := txnOffsetsCluster(t)
	execAll(t, w, "producer q transactional.id=app2 timeout=60s tv=2", "advance 1s")
	out := execAll(t, w, "begin p", "produce p t partition=0 value=b", "advance 1s",
		"crash b0", "advance 10s", "send-offsets p group=g t-0=2", "advance 1s")
	if !strings.Contains(out, "__transaction_state-0 leader=none") {
		t.Fatalf("the coordinator's partition kept a leader:\n%s", out)
	}
	if !strings.Contains(out, "b1 -> p      TxnOffsetCommit t-0 COORDINATOR_NOT_AVAILABLE") || strings.Contains(out, "NOT_ENOUGH_REPLICAS") {
		t.Fatalf("TxnOffsetCommit v5 with the transaction coordinator offline, want COORDINATOR_NOT_AVAILABLE:\n%s", out)
	}
	out = execAll(t, w, "begin q", "produce q t partition=0 value=x", "advance 50ms")
	if !strings.Contains(out, "b1 -> q      Produce t-0 base_offset=0 error=NOT_ENOUGH_REPLICAS") {
		t.Fatalf("Produce v12 with the transaction coordinator offline, want NOT_ENOUGH_REPLICAS:\n%s", out)
	}
	out = execAll(t, w, "restart b0", "advance 10s")
	if !strings.Contains(out, "b1 -> p      TxnOffsetCommit t-0 NONE") {
		t.Fatalf("the retried TxnOffsetCommit once the coordinator is back:\n%s", out)
	}
	out = execAll(t, w, "commit p", "advance 2s", "committed g t-0 broker=b1", "advance 1s")
	if !strings.Contains(out, "EndTxn NONE") || !strings.Contains(out, "b1 -> admin  OffsetFetch t-0=2") {
		t.Fatalf("commit with the offsets:\n%s", out)
	}
}

// TestTxnOffsetCommitV5CoordinatorLost: the transaction coordinator dies
// with the group coordinator's AddPartitionsToTxn in flight. Kafka's
// AddPartitionsToTxnManager answers a request that timed out or whose
// connection dropped NETWORK_EXCEPTION, and the group coordinator
// answers the TxnOffsetCommit COORDINATOR_LOAD_IN_PROGRESS: the producer
// retries it with the same coordinator.
func TestTxnOffsetCommitV5CoordinatorLost(t *testing.T) {
	w := txnOffsetsCluster(t)
	out := execAll(t, w, "begin p", "produce p t partition=0 value=b", "advance 1s",
		"crash b0", "send-offsets p group=g t-0=2", "advance 5100ms")
	if !strings.Contains(out, "b1 -> b0     (broker down) AddPartitionsToTxn") {
		t.Fatalf("the implicit add was not sent to the dead coordinator:\n%s", out)
	}
	if !strings.Contains(out, "b1 -> p      TxnOffsetCommit t-0 COORDINATOR_LOAD_IN_PROGRESS") || strings.Contains(out, "NOT_ENOUGH_REPLICAS") {
		t.Fatalf("TxnOffsetCommit v5 whose add got no answer, want COORDINATOR_LOAD_IN_PROGRESS:\n%s", out)
	}
	out = execAll(t, w, "restart b0", "advance 10s", "commit p", "advance 2s", "committed g t-0 broker=b1", "advance 1s")
	if !strings.Contains(out, "b1 -> p      TxnOffsetCommit t-0 NONE") || !strings.Contains(out, "EndTxn NONE") || !strings.Contains(out, "b1 -> admin  OffsetFetch t-0=2") {
		t.Fatalf("the retried TxnOffsetCommit and the commit once the coordinator is back:\n%s", out)
	}
}
