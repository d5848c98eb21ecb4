package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/producer"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
)

// rawPartitions turns off the coordinator's verification for tests that
// drive the partition side of transactions without a coordinator.
var rawPartitions = map[string]string{"transaction.partition.verification.enable": "false"}

// rt sends a request and returns its answer, running Commit when the
// answer waits for a sync.
func rt[T kmsg.Response](h *harness, req kmsg.Request) T {
	h.t.Helper()
	out := h.send(req)
	if len(out) == 0 {
		if err := h.b.Commit(); err != nil {
			h.t.Fatal(err)
		}
		out = h.answers()
	} else if err := h.b.Commit(); err != nil {
		h.t.Fatal(err)
	}
	if len(out) != 1 {
		h.t.Fatalf("%s: %d answers", kmsg.NameForKey(req.Key()), len(out))
	}
	return out[0].Msg.(T)
}

type tx struct {
	h     *harness
	id    string
	pid   int64
	epoch int16
	seq   int32
}

func (h *harness) initTxn(id string, timeoutMs int32) (*tx, int16) {
	h.t.Helper()
	req := kmsg.NewPtrInitProducerIDRequest()
	req.SetVersion(4)
	req.TransactionalID, req.TransactionTimeoutMillis = &id, timeoutMs
	resp := rt[*kmsg.InitProducerIDResponse](h, req)
	return &tx{h: h, id: id, pid: resp.ProducerID, epoch: resp.ProducerEpoch}, resp.ErrorCode
}

func (x *tx) add(topic string, partitions ...int32) int16 {
	x.h.t.Helper()
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.SetVersion(3)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch = x.id, x.pid, x.epoch
	req.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: topic, Partitions: partitions}}
	return rt[*kmsg.AddPartitionsToTxnResponse](x.h, req).Topics[0].Partitions[0].ErrorCode
}

func (x *tx) produce(partition int32, values ...string) kmsg.ProduceResponseTopicPartition {
	x.h.t.Helper()
	req := produceReq("t", partition, -1, idemBatch(x.pid, x.epoch, x.seq, true, values...))
	req.TransactionID = &x.id
	x.seq += int32(len(values))
	return rt[*kmsg.ProduceResponse](x.h, req).Topics[0].Partitions[0]
}

func (x *tx) end(commit bool) int16 {
	x.h.t.Helper()
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(3)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = x.id, x.pid, x.epoch, commit
	return rt[*kmsg.EndTxnResponse](x.h, req).ErrorCode
}

func must(t *testing.T, what string, code int16) {
	t.Helper()
	if code != 0 {
		t.Fatalf("%s: %v", what, kerr.ErrorForCode(code))
	}
}

// markersIn lists the control batches of t-p: "COMMIT@5".
func (h *harness) markersIn(p int32) []string {
	h.t.Helper()
	var out []string
	data := h.fetchAtP(p, 0, 0).RecordBatches
	it := record.NewIter(data)
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		if b.IsControl() {
			kind, _, err := producer.DecodeMarker(b)
			if err != nil {
				h.t.Fatal(err)
			}
			out = append(out, map[int16]string{0: "ABORT", 1: "COMMIT"}[kind])
		}
	}
	return out
}

func (h *harness) fetchAtP(p int32, offset int64, isolation int8) kmsg.FetchResponseTopicPartition {
	h.t.Helper()
	req := fetchReq("t", p, offset, 0, 0)
	req.IsolationLevel = isolation
	return call[*kmsg.FetchResponse](h, req).Topics[0].Partitions[0]
}

func (h *harness) txnState(id string) txn.Metadata {
	h.t.Helper()
	m, ok := h.b.Transactions().Get(id)
	if !ok {
		h.t.Fatalf("no transaction %s", id)
	}
	return m
}

// TestTxnLifecycle: FindCoordinator, InitProducerId, AddPartitionsToTxn,
// Produce, EndTxn; the markers and CompleteCommit follow at Commit, and
// read_committed sees the records only then.
func TestTxnLifecycle(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.SetVersion(3)
	fc.CoordinatorKey, fc.CoordinatorType = "app", 1
	if r := call[*kmsg.FindCoordinatorResponse](h, fc); r.ErrorCode != 0 || r.NodeID != 1 {
		t.Fatalf("FindCoordinator: %v node %d", kerr.ErrorForCode(r.ErrorCode), r.NodeID)
	}
	x, code := h.initTxn("app", 60000)
	must(t, "InitProducerId", code)
	if x.epoch != 0 {
		t.Fatalf("first epoch %d", x.epoch)
	}
	must(t, "AddPartitionsToTxn", x.add("t", 0, 1))
	if p := x.produce(0, "a", "b"); p.ErrorCode != 0 {
		t.Fatal(kerr.ErrorForCode(p.ErrorCode))
	}
	if p := x.produce(1, "c"); p.ErrorCode != 0 {
		t.Fatal(kerr.ErrorForCode(p.ErrorCode))
	}
	if got := h.fetchAtP(0, 0, 1); got.LastStableOffset != 0 || len(got.RecordBatches) != 0 {
		t.Fatalf("read_committed before commit: lso %d, %d bytes", got.LastStableOffset, len(got.RecordBatches))
	}
	if got := h.txnState("app"); got.State != txn.Ongoing || len(got.Partitions) != 2 {
		t.Fatalf("state %s partitions %v", got.State, got.Partitions)
	}
	must(t, "EndTxn", x.end(true))
	if got := h.txnState("app"); got.State != txn.CompleteCommit {
		t.Fatalf("after EndTxn and Commit: %s", got.State)
	}
	for p := int32(0); p < 2; p++ {
		if m := h.markersIn(p); len(m) != 1 || m[0] != "COMMIT" {
			t.Fatalf("t-%d markers %v", p, m)
		}
	}
	got := h.fetchAtP(0, 0, 1)
	if d, _ := offsetsIn(t, got.RecordBatches); got.LastStableOffset != 3 || len(d) != 2 {
		t.Fatalf("read_committed after commit: lso %d data %v", got.LastStableOffset, d)
	}
	// The log of __transaction_state holds every step in Kafka's schema.
	var states []string
	p := h.b.txn.PartitionFor("app")
	h.b.ReplayInternal(TransactionStateTopic, p, func(_ int64, r record.Record) {
		_, m, err := txn.Decode(r.Key, r.Value)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, m.State.String())
	})
	want := []string{"EMPTY", "ONGOING", "PREPARE_COMMIT", "COMPLETE_COMMIT"}
	if len(states) != len(want) {
		t.Fatalf("records %v, want %v", states, want)
	}
	for i := range want {
		if states[i] != want[i] {
			t.Fatalf("records %v, want %v", states, want)
		}
	}
	// A retried EndTxn of the same decision is answered NONE.
	must(t, "EndTxn retry", x.end(true))
}

// TestTxnAbortFiltered: an aborted transaction's records are filtered by
// the aborted list of read_committed fetches and seen by read_uncommitted.
func TestTxnAbortFiltered(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	x, code := h.initTxn("app", 60000)
	must(t, "InitProducerId", code)
	must(t, "add", x.add("t", 0))
	x.produce(0, "bad")
	must(t, "abort", x.end(false))
	must(t, "add again", x.add("t", 0))
	x.produce(0, "good")
	must(t, "commit", x.end(true))
	rc := h.fetchAtP(0, 0, 1)
	if len(rc.AbortedTransactions) != 1 || rc.AbortedTransactions[0].FirstOffset != 0 {
		t.Fatalf("aborted list %+v", rc.AbortedTransactions)
	}
	ru := h.fetchAtP(0, 0, 0)
	if d, c := offsetsIn(t, ru.RecordBatches); len(d) != 2 || len(c) != 2 {
		t.Fatalf("read_uncommitted data %v control %v", d, c)
	}
}

// TestTxnFencing: a second InitProducerId for the same id bumps the epoch
// and aborts the open transaction (CONCURRENT_TRANSACTIONS meanwhile);
// the old instance is fenced at the coordinator and at the partition.
func TestTxnFencing(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	old, code := h.initTxn("app", 60000)
	must(t, "init", code)
	must(t, "add", old.add("t", 0))
	old.produce(0, "zombie")
	if _, code := h.initTxn("app", 60000); code != kerr.ConcurrentTransactions.Code {
		t.Fatalf("second init while open: %v", kerr.ErrorForCode(code))
	}
	if m := h.markersIn(0); len(m) != 1 || m[0] != "ABORT" {
		t.Fatalf("markers %v", m)
	}
	fresh, code := h.initTxn("app", 60000)
	must(t, "retried init", code)
	if fresh.pid != old.pid || fresh.epoch != old.epoch+2 {
		t.Fatalf("new instance pid %d epoch %d, old %d/%d", fresh.pid, fresh.epoch, old.pid, old.epoch)
	}
	if code := old.end(true); code != kerr.ProducerFenced.Code {
		t.Fatalf("zombie EndTxn: %v", kerr.ErrorForCode(code))
	}
	if code := old.add("t", 0); code != kerr.ProducerFenced.Code {
		t.Fatalf("zombie AddPartitionsToTxn: %v", kerr.ErrorForCode(code))
	}
	if p := old.produce(0, "late"); p.ErrorCode != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("zombie produce: %v", kerr.ErrorForCode(p.ErrorCode))
	}
}

// TestTxnTimeout: a transaction open past its timeout is aborted on Tick
// with an epoch bump; the producer that carries on is fenced.
func TestTxnTimeout(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	x, code := h.initTxn("app", 5000)
	must(t, "init", code)
	must(t, "add", x.add("t", 0))
	x.produce(0, "slow")
	h.now += 20000
	h.b.Tick(h.now)
	must(t, "commit", int16(errCode(h.b.Commit())))
	if got := h.txnState("app"); got.State != txn.CompleteAbort || got.ProducerEpoch != x.epoch+1 {
		t.Fatalf("after timeout: %s epoch %d", got.State, got.ProducerEpoch)
	}
	if code := x.end(true); code != kerr.ProducerFenced.Code {
		t.Fatalf("EndTxn after timeout: %v", kerr.ErrorForCode(code))
	}
	if got := h.fetchAtP(0, 0, 1); got.LastStableOffset != 2 || len(got.AbortedTransactions) != 1 {
		t.Fatalf("lso %d aborted %v", got.LastStableOffset, got.AbortedTransactions)
	}
	req := kmsg.NewPtrInitProducerIDRequest()
	req.TransactionalID, req.TransactionTimeoutMillis = &x.id, 900001
	if r := rt[*kmsg.InitProducerIDResponse](h, req); r.ErrorCode != kerr.InvalidTransactionTimeout.Code {
		t.Fatalf("timeout above the max: %v", kerr.ErrorForCode(r.ErrorCode))
	}
}

func errCode(err error) int {
	if err != nil {
		return int(kerr.KafkaStorageError.Code)
	}
	return 0
}

// TestTxnRestartInPrepareCommit: the broker dies once PrepareCommit is
// durable but before any marker; the restarted coordinator finishes the
// commit from __transaction_state.
func TestTxnRestartInPrepareCommit(t *testing.T) {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	h.createTopic("t", 2, nil)
	x, code := h.initTxn("app", 60000)
	must(t, "init", code)
	must(t, "add", x.add("t", 0, 1))
	x.produce(0, "a")
	x.produce(1, "b")
	req := kmsg.NewPtrEndTxnRequest()
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = x.id, x.pid, x.epoch, true
	h.send(req)
	if err := h.b.flushDirty(); err != nil { // PrepareCommit synced, then the crash
		t.Fatal(err)
	}
	h.st.Crash()
	h.open()
	// The markers are written at startup; the Complete record follows
	// their sync, at the first Commit.
	if got := h.txnState("app"); got.State != txn.PrepareCommit {
		t.Fatalf("after restart, before the markers' sync: %s", got.State)
	}
	if err := h.b.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := h.txnState("app"); got.State != txn.CompleteCommit {
		t.Fatalf("after restart: %s", got.State)
	}
	for p := int32(0); p < 2; p++ {
		if m := h.markersIn(p); len(m) != 1 || m[0] != "COMMIT" {
			t.Fatalf("t-%d markers %v", p, m)
		}
		if got := h.fetchAtP(p, 0, 1); got.LastStableOffset != 2 {
			t.Fatalf("t-%d lso %d", p, got.LastStableOffset)
		}
	}
}

// TestTxnOffsetCommit: offsets sent inside a transaction are invisible
// until the commit marker reaches __consumer_offsets; an aborted
// transaction's offsets never appear; both survive a restart.
func TestTxnOffsetCommit(t *testing.T) {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	h.createTopic("t", 1, nil)
	x, code := h.initTxn("app", 60000)
	must(t, "init", code)
	send := func(offset int64, commit bool) {
		t.Helper()
		must(t, "TxnOffsetCommit", x.offsets("g", offset, "t").Topics[0].Partitions[0].ErrorCode)
		if got := h.committed("g"); got != -1 && offset == 5 {
			t.Fatalf("offset visible before the marker: %d", got)
		}
		must(t, "EndTxn", x.end(commit))
	}
	send(5, true)
	if got := h.committed("g"); got != 5 {
		t.Fatalf("after commit: %d", got)
	}
	send(9, false)
	if got := h.committed("g"); got != 5 {
		t.Fatalf("after abort: %d", got)
	}
	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	h.open()
	if got := h.committed("g"); got != 5 {
		t.Fatalf("after restart: %d", got)
	}
}

// offsets adds group's offsets to the transaction (AddOffsetsToTxn, which
// must succeed) and commits offset for partition 0 of each topic in it
// (TxnOffsetCommit).
func (x *tx) offsets(group string, offset int64, topics ...string) *kmsg.TxnOffsetCommitResponse {
	x.h.t.Helper()
	ao := kmsg.NewPtrAddOffsetsToTxnRequest()
	ao.TransactionalID, ao.ProducerID, ao.ProducerEpoch, ao.Group = x.id, x.pid, x.epoch, group
	must(x.h.t, "AddOffsetsToTxn", rt[*kmsg.AddOffsetsToTxnResponse](x.h, ao).ErrorCode)
	oc := kmsg.NewPtrTxnOffsetCommitRequest()
	oc.SetVersion(3)
	oc.TransactionalID, oc.Group, oc.ProducerID, oc.ProducerEpoch, oc.Generation = x.id, group, x.pid, x.epoch, -1
	for _, n := range topics {
		oc.Topics = append(oc.Topics, kmsg.TxnOffsetCommitRequestTopic{Topic: n, Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{{Partition: 0, Offset: offset, LeaderEpoch: -1}}})
	}
	return rt[*kmsg.TxnOffsetCommitResponse](x.h, oc)
}

func (h *harness) committed(group string) int64 {
	h.t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.SetVersion(7)
	req.Group = group
	req.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: "t", Partitions: []int32{0}}}
	return rt[*kmsg.OffsetFetchResponse](h, req).Topics[0].Partitions[0].Offset
}
