package broker

import (
	"maps"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/txn"
)

func (h *harness) arm(spec ...string) {
	h.t.Helper()
	f, err := store.ParseFault(spec)
	if err != nil {
		h.t.Fatal(err)
	}
	h.st.Arm(f)
}

// produceAnswers sends one acks=all batch per partition of t and returns
// each partition's answer after the next Commit, and Commit's error.
func (h *harness) produceAnswers(values map[int32]string) (map[int32]kmsg.ProduceResponseTopicPartition, error) {
	h.t.Helper()
	for _, p := range slices.Sorted(maps.Keys(values)) {
		if out := h.send(produceReq("t", p, -1, batchOf(values[p]))); len(out) != 0 {
			h.t.Fatalf("t-%d answered before the sync", p)
		}
	}
	h.reset()
	err := h.b.Commit()
	got := map[int32]kmsg.ProduceResponseTopicPartition{}
	for _, r := range h.answers() {
		sp := r.Msg.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
		got[sp.Partition] = sp
	}
	if len(got) != len(values) {
		h.t.Fatalf("commit released %d answers, want %d", len(got), len(values))
	}
	return got, err
}

// TestCommitFailedSync: with flush.messages=1 an acks=all produce waits
// for the sync; when the sync of t-0 fails its answer is
// KAFKA_STORAGE_ERROR while t-1's succeeds, and t-0 goes offline: no more
// appends, reads stop at what was synced, Metadata lists it offline. A
// restart recovers it, without the record whose sync failed.
func TestCommitFailedSync(t *testing.T) {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	h.createTopic("t", 2, nil)
	if got, err := h.produceAnswers(map[int32]string{0: "a"}); err != nil || got[0].ErrorCode != 0 {
		t.Fatalf("first produce: %v %v", got, err)
	}
	h.arm("sync", "t-0/")
	got, err := h.produceAnswers(map[int32]string{0: "b", 1: "c"})
	if err == nil {
		t.Fatal("Commit hid the failed sync")
	}
	if got[0].ErrorCode != kerr.KafkaStorageError.Code || got[0].BaseOffset != -1 {
		t.Fatalf("t-0 after its failed sync: %v base %d", kerr.ErrorForCode(got[0].ErrorCode), got[0].BaseOffset)
	}
	if got[1].ErrorCode != 0 || got[1].BaseOffset != 0 {
		t.Fatalf("t-1 (healthy): %v base %d", kerr.ErrorForCode(got[1].ErrorCode), got[1].BaseOffset)
	}

	// Offline: no appends, reads up to what was synced.
	if sp := h.produce(batchOf("d")); sp.ErrorCode != kerr.KafkaStorageError.Code {
		t.Fatalf("produce to the offline partition: %v", kerr.ErrorForCode(sp.ErrorCode))
	}
	if f := h.fetchAt(0, 0); f.HighWatermark != 1 || countRecords(t, f.RecordBatches) != 1 {
		t.Fatalf("fetch of the offline partition: hw %d, %d records; want only the synced one", f.HighWatermark, countRecords(t, f.RecordBatches))
	}
	md := call[*kmsg.MetadataResponse](h, kmsg.NewPtrMetadataRequest())
	for _, mt := range md.Topics {
		for _, mp := range mt.Partitions {
			offline := *mt.Topic == "t" && mp.Partition == 0
			if offline != (mp.ErrorCode == kerr.LeaderNotAvailable.Code && mp.Leader == -1 && slices.Equal(mp.OfflineReplicas, []int32{1})) {
				t.Fatalf("metadata of %s-%d: %v leader %d offline %v", *mt.Topic, mp.Partition, kerr.ErrorForCode(mp.ErrorCode), mp.Leader, mp.OfflineReplicas)
			}
		}
	}
	// A later sync is never tried on it: it could lie (fsyncgate).
	h.now += 60_000
	h.b.Tick(h.now)
	if err := h.b.Commit(); err != nil {
		t.Fatalf("a later Commit touched the failed log: %v", err)
	}

	// The machine goes down; the restart recovers t-0 from what is on disk.
	h.st.Crash()
	h.open()
	if f := h.fetchAt(0, 0); countRecords(t, f.RecordBatches) != 1 {
		t.Fatalf("after restart t-0 holds %d records, want the 1 acknowledged", countRecords(t, f.RecordBatches))
	}
	if got, err := h.produceAnswers(map[int32]string{0: "e"}); err != nil || got[0].ErrorCode != 0 || got[0].BaseOffset != 1 {
		t.Fatalf("produce after restart: %v base %d %v", kerr.ErrorForCode(got[0].ErrorCode), got[0].BaseOffset, err)
	}
}

// TestFailedWrite: an append that fails answers KAFKA_STORAGE_ERROR at
// once and takes the partition offline.
func TestFailedWrite(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	h.mustProduce(batchOf("a"), 0)
	h.arm("write", "t-0/", "err=ENOSPC")
	if sp := h.produce(batchOf("b")); sp.ErrorCode != kerr.KafkaStorageError.Code {
		t.Fatalf("failed append: %v", kerr.ErrorForCode(sp.ErrorCode))
	}
	if !h.b.topics["t"].Partitions[0].Offline() {
		t.Fatal("partition still online after a failed write")
	}
	if sp := h.produce(batchOf("c")); sp.ErrorCode != kerr.KafkaStorageError.Code {
		t.Fatalf("append after the failure: %v", kerr.ErrorForCode(sp.ErrorCode))
	}
}

// TestCommitFailedPrepareSync: the sync of the PrepareCommit record
// fails. EndTxn is not told it committed, no marker is written (Commit
// does not go on to the second phase for it), read_committed never sees
// the records, and the coordinator answers errors instead of pretending.
func TestCommitFailedPrepareSync(t *testing.T) {
	h, x, code := commitWithFault(t, "sync", "__transaction_state-")
	if code != kerr.NotCoordinator.Code {
		t.Fatalf("EndTxn after its Prepare failed to sync: %v", kerr.ErrorForCode(code))
	}
	if m := h.markersIn(0); len(m) != 0 {
		t.Fatalf("markers written after a failed Prepare sync: %v", m)
	}
	if f := h.fetchAtP(0, 0, 1); f.LastStableOffset != 0 || len(f.RecordBatches) != 0 {
		t.Fatalf("read_committed sees lso %d, %d bytes", f.LastStableOffset, len(f.RecordBatches))
	}
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKey, fc.CoordinatorType = "app", 1
	if r := call[*kmsg.FindCoordinatorResponse](h, fc); r.ErrorCode != kerr.CoordinatorNotAvailable.Code {
		t.Fatalf("FindCoordinator of a failed coordinator: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if code := x.end(true); code != kerr.NotCoordinator.Code {
		t.Fatalf("EndTxn retried: %v", kerr.ErrorForCode(code))
	}

	// After a crash and restart the PrepareCommit is gone: the
	// transaction is still open, times out and is aborted.
	h.st.Crash()
	h.open()
	if got := h.txnState("app"); got.State != txn.Ongoing {
		t.Fatalf("after restart: %s, want Ongoing", got.State)
	}
	h.now += 120_000
	h.b.Tick(h.now)
	if err := h.b.Commit(); err != nil {
		t.Fatal(err)
	}
	if m := h.markersIn(0); !slices.Equal(m, []string{"ABORT"}) {
		t.Fatalf("markers after restart and timeout: %v", m)
	}
	if f := h.fetchAtP(0, 0, 1); len(f.AbortedTransactions) != 1 || f.AbortedTransactions[0].ProducerID != x.pid {
		t.Fatalf("read_committed is not told to drop the transaction that never committed: %v", f.AbortedTransactions)
	}
}

// TestMarkerSyncFails: a marker whose sync fails is not reported written
// to the coordinator, which records no Complete and keeps retrying.
func TestMarkerSyncFails(t *testing.T) {
	h, _, code := commitWithFault(t, "sync", "t-0/")
	if code != 0 {
		t.Fatalf("EndTxn (its PrepareCommit synced): %v", kerr.ErrorForCode(code))
	}
	if got := h.txnState("app"); got.State != txn.PrepareCommit {
		t.Fatalf("coordinator completed a transaction whose marker failed to sync: %s", got.State)
	}
}

// commitWithFault runs a transaction that wrote "a" to t-0 under
// flush.messages=1, arms the fault, and sends EndTxn(commit), which waits
// for the Commit whose sync fails. It returns EndTxn's error code.
func commitWithFault(t *testing.T, fault ...string) (*harness, *tx, int16) {
	t.Helper()
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	h.createTopic("t", 1, nil)
	x, code := h.initTxn("app", 60000)
	must(t, "init", code)
	must(t, "add", x.add("t", 0))
	must(t, "produce", x.produce(0, "a").ErrorCode)
	h.arm(fault...)
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(3)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = x.id, x.pid, x.epoch, true
	if out := h.send(req); len(out) != 0 {
		t.Fatal("EndTxn answered before PrepareCommit was synced")
	}
	h.reset()
	if err := h.b.Commit(); err == nil {
		t.Fatal("Commit hid the failed sync")
	}
	if len(h.answers()) != 1 {
		t.Fatalf("Commit released %d answers, want EndTxn's", len(h.answers()))
	}
	return h, x, h.answers()[0].Msg.(*kmsg.EndTxnResponse).ErrorCode
}

func countRecords(t *testing.T, data []byte) int {
	t.Helper()
	d, _ := offsetsIn(t, data)
	return len(d)
}

// TestOffsetCommitSyncFails: an OffsetCommit whose __consumer_offsets
// record fails to sync is answered NOT_COORDINATOR, not success; the
// group's coordinator is unloaded (FindCoordinator answers
// COORDINATOR_NOT_AVAILABLE) rather than serve offsets it could not keep.
func TestOffsetCommitSyncFails(t *testing.T) {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	h.createTopic("t", 1, nil)
	commit := func(offset int64) kmsg.Response {
		req := kmsg.NewPtrOffsetCommitRequest()
		req.SetVersion(7)
		req.Group, req.Generation = "g", -1
		req.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: offset}}}}
		return h.afterSync(req)
	}
	code := func(out kmsg.Response) int16 {
		return out.(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode
	}
	must(t, "first commit", code(commit(5)))
	h.arm("sync", "__consumer_offsets-")
	if c := code(commit(7)); c != kerr.NotCoordinator.Code {
		t.Fatalf("OffsetCommit whose sync failed: %v, want NOT_COORDINATOR", kerr.ErrorForCode(c))
	}
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.CoordinatorKey = "g"
	if r := call[*kmsg.FindCoordinatorResponse](h, fc); r.ErrorCode != kerr.CoordinatorNotAvailable.Code {
		t.Fatalf("FindCoordinator of the failed coordinator: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	h.st.Crash()
	h.open()
	if got := h.committed("g"); got != 5 {
		t.Fatalf("after restart the committed offset is %d, want 5 (the one acknowledged)", got)
	}
}

// TestShareHeartbeatSyncFails: a member learns its epoch and assignment
// only once the share group records that carry them are synced; when
// that sync fails the heartbeat is answered NOT_COORDINATOR, not with a
// membership the coordinator could not keep.
func TestShareHeartbeatSyncFails(t *testing.T) {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	h.createTopic("t", 1, nil)
	join := func(member string) *kmsg.ShareGroupHeartbeatResponse {
		req := kmsg.NewPtrShareGroupHeartbeatRequest()
		req.SetVersion(1)
		req.GroupID, req.MemberID, req.SubscribedTopicNames = "sg", member, []string{"t"}
		return h.afterSync(req).(*kmsg.ShareGroupHeartbeatResponse)
	}
	if r := join("m1"); r.ErrorCode != 0 || r.MemberEpoch != 1 {
		t.Fatalf("first member: %v, epoch %d", kerr.ErrorForCode(r.ErrorCode), r.MemberEpoch)
	}
	h.arm("sync", "__consumer_offsets-")
	if r := join("m2"); r.ErrorCode != kerr.NotCoordinator.Code {
		t.Fatalf("heartbeat whose records failed to sync: %v epoch %d, want NOT_COORDINATOR", kerr.ErrorForCode(r.ErrorCode), r.MemberEpoch)
	}
}

// afterSync sends a request whose answer must wait for the sync of what it
// wrote (log.flush.interval.messages=1), runs the Commit that syncs (or
// fails to), and returns the one answer it released.
func (h *harness) afterSync(req kmsg.Request) kmsg.Response {
	h.t.Helper()
	if out := h.send(req); len(out) != 0 {
		h.t.Fatalf("%s answered before what it wrote was synced", kmsg.NameForKey(req.Key()))
	}
	h.reset()
	_ = h.b.Commit()
	if len(h.answers()) != 1 {
		h.t.Fatalf("%s: the Commit released %d answers, want 1", kmsg.NameForKey(req.Key()), len(h.answers()))
	}
	return h.answers()[0].Msg
}

// TestCoordinatorWriteFails: a coordinator's append to its internal
// topic fails (the partition goes offline). The request is answered
// NOT_COORDINATOR, as Kafka's coordinators answer KAFKA_STORAGE_ERROR and
// NOT_LEADER_OR_FOLLOWER (CoordinatorOperationExceptionHelper.
// handleOperationException, TransactionStateManager.appendTransactionToLog):
// this broker no longer serves the partition, and the client looks the
// coordinator up again.
func TestCoordinatorWriteFails(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(h *harness) int16
	}{
		{"OffsetCommit", func(h *harness) int16 {
			commit := func(offset int64) int16 {
				req := kmsg.NewPtrOffsetCommitRequest()
				req.SetVersion(7)
				req.Group, req.Generation = "g", -1
				req.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: offset}}}}
				return call[*kmsg.OffsetCommitResponse](h, req).Topics[0].Partitions[0].ErrorCode
			}
			must(h.t, "first commit", commit(5))
			h.arm("write", "__consumer_offsets-", "err=EIO")
			return commit(7)
		}},
		{"TxnOffsetCommit", func(h *harness) int16 {
			x, code := h.initTxn("app", 60000)
			must(h.t, "init", code)
			must(h.t, "first TxnOffsetCommit", x.offsets("g", 5, "t").Topics[0].Partitions[0].ErrorCode)
			h.arm("write", "__consumer_offsets-", "err=EIO")
			oc := kmsg.NewPtrTxnOffsetCommitRequest()
			oc.SetVersion(3)
			oc.TransactionalID, oc.Group, oc.ProducerID, oc.ProducerEpoch, oc.Generation = x.id, "g", x.pid, x.epoch, -1
			oc.Topics = []kmsg.TxnOffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{{Partition: 0, Offset: 7, LeaderEpoch: -1}}}}
			return rt[*kmsg.TxnOffsetCommitResponse](h, oc).Topics[0].Partitions[0].ErrorCode
		}},
		{"AddOffsetsToTxn", func(h *harness) int16 {
			x, code := h.initTxn("app", 60000)
			must(h.t, "init", code)
			h.arm("write", "__transaction_state-", "err=EIO")
			ao := kmsg.NewPtrAddOffsetsToTxnRequest()
			ao.TransactionalID, ao.ProducerID, ao.ProducerEpoch, ao.Group = x.id, x.pid, x.epoch, "g"
			return rt[*kmsg.AddOffsetsToTxnResponse](h, ao).ErrorCode
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.createTopic("t", 1, nil)
			if got := c.run(h); got != kerr.NotCoordinator.Code {
				t.Fatalf("%s whose write failed: %v, want NOT_COORDINATOR", c.name, kerr.ErrorForCode(got))
			}
		})
	}
}
