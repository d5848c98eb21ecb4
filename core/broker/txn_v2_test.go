package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/txn"
)

func (h *harness) features() (map[string]int16, int64) {
	h.t.Helper()
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(3)
	resp := call[*kmsg.ApiVersionsResponse](h, req)
	f := map[string]int16{}
	for _, ff := range resp.FinalizedFeatures {
		f[ff.Name] = ff.MaxVersionLevel
	}
	return f, resp.FinalizedFeaturesEpoch
}

func (h *harness) updateFeature(name string, level int16, upgradeType int8, validateOnly bool) *kmsg.UpdateFeaturesResponse {
	h.t.Helper()
	req := kmsg.NewPtrUpdateFeaturesRequest()
	req.SetVersion(1)
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = name, level, upgradeType
	req.FeatureUpdates, req.ValidateOnly = append(req.FeatureUpdates, u), validateOnly
	return call[*kmsg.UpdateFeaturesResponse](h, req)
}

// TestFeatures: a new data directory starts at Kafka 4.0's levels; a
// downgrade must say so; levels survive a restart; a data directory
// from before features keeps transaction.version at 0.
func TestFeatures(t *testing.T) {
	h := newHarness(t, nil)
	f, epoch := h.features()
	if f[cluster.TransactionVersion] != 2 || f[cluster.MetadataVersion] != 25 || f[cluster.GroupVersion] != 1 || epoch < 1 {
		t.Fatalf("new broker: features %v epoch %d", f, epoch)
	}
	for _, c := range []struct {
		name  string
		level int16
		typ   int8
	}{
		{cluster.TransactionVersion, 1, cluster.UpgradeOnly}, // a downgrade asked as an upgrade
		{cluster.TransactionVersion, 3, cluster.UpgradeOnly}, // above what is supported
		{cluster.MetadataVersion, 24, cluster.SafeDowngrade}, // a single supported level
		{"kraft.version.x", 1, cluster.UpgradeOnly},          // unknown
	} {
		if r := h.updateFeature(c.name, c.level, c.typ, false); r.ErrorCode != kerr.InvalidUpdateVersion.Code || r.Results[0].ErrorCode != r.ErrorCode {
			t.Errorf("%s=%d type %d: %v, want INVALID_UPDATE_VERSION", c.name, c.level, c.typ, kerr.ErrorForCode(r.ErrorCode))
		}
	}
	if r := h.updateFeature(cluster.TransactionVersion, 1, cluster.SafeDowngrade, true); r.ErrorCode != 0 {
		t.Fatalf("validate-only downgrade: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if f, _ := h.features(); f[cluster.TransactionVersion] != 2 {
		t.Fatalf("validate_only changed the level: %v", f)
	}
	if r := h.updateFeature(cluster.TransactionVersion, 1, cluster.SafeDowngrade, false); r.ErrorCode != 0 {
		t.Fatalf("safe downgrade: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	h.open()
	if f, e := h.features(); f[cluster.TransactionVersion] != 1 || e <= epoch {
		t.Fatalf("after a restart: %v epoch %d (was %d)", f, e, epoch)
	}
	if r := h.updateFeature(cluster.TransactionVersion, 0, cluster.UnsafeDowngrade, false); r.ErrorCode != 0 {
		t.Fatalf("unsafe downgrade to 0: %v", kerr.ErrorForCode(r.ErrorCode))
	}
	if f, _ := h.features(); f[cluster.TransactionVersion] != 0 {
		t.Fatalf("level 0 is still finalized: %v", f)
	}

	// Metadata written before features: only what cannot be 0 is added.
	h.b.meta.Features, h.b.meta.FeaturesEpoch = nil, 0
	if err := h.b.saveMetadata(); err != nil {
		t.Fatal(err)
	}
	h.open()
	if f, _ := h.features(); f[cluster.TransactionVersion] != 0 || f[cluster.MetadataVersion] != 25 {
		t.Fatalf("old data directory: %v, want metadata.version only", f)
	}
}

// TestProduceV12ImplicitAdd: a Produce v12 adds its partition to the
// transaction (no AddPartitionsToTxn), EndTxn v5 bumps the epoch, and the
// producer of the previous transaction is fenced on every partition.
func TestProduceV12ImplicitAdd(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	x, code := h.initTxn("tx", 60000)
	must(t, "InitProducerId", code)
	produce12 := func(partition int32, epoch int16, seq int32, values ...string) kmsg.ProduceResponseTopicPartition {
		req := produceReq("t", partition, -1, idemBatch(x.pid, epoch, seq, true, values...))
		req.SetVersion(12)
		req.TransactionID = &x.id
		return rt[*kmsg.ProduceResponse](h, req).Topics[0].Partitions[0]
	}
	if p := produce12(0, x.epoch, 0, "a", "b"); p.ErrorCode != 0 {
		t.Fatalf("Produce v12: %v", kerr.ErrorForCode(p.ErrorCode))
	}
	st, _ := h.b.Transactions().Get("tx")
	if st.State != txn.Ongoing || st.ClientTV != 2 || len(st.Partitions) != 1 {
		t.Fatalf("after the implicit add: %s", st.Describe())
	}
	// A Produce v11 still needs AddPartitionsToTxn (KIP-890 part 1).
	req := produceReq("t", 1, -1, idemBatch(x.pid, x.epoch, 0, true, "c"))
	req.SetVersion(11)
	req.TransactionID = &x.id
	if p := rt[*kmsg.ProduceResponse](h, req).Topics[0].Partitions[0]; p.ErrorCode != kerr.InvalidTxnState.Code {
		t.Fatalf("Produce v11 without AddPartitionsToTxn: %v, want INVALID_TXN_STATE", kerr.ErrorForCode(p.ErrorCode))
	}
	end := kmsg.NewPtrEndTxnRequest()
	end.SetVersion(5)
	end.TransactionalID, end.ProducerID, end.ProducerEpoch, end.Commit = x.id, x.pid, x.epoch, true
	er := rt[*kmsg.EndTxnResponse](h, end)
	if er.ErrorCode != 0 || er.ProducerEpoch != x.epoch+1 {
		t.Fatalf("EndTxn v5: %v epoch %d", kerr.ErrorForCode(er.ErrorCode), er.ProducerEpoch)
	}
	h.b.Commit() // the markers go out after the Prepare record's sync
	if f := h.fetchAt(0, 1); f.LastStableOffset != 3 {
		t.Fatalf("read_committed: last stable offset %d, want 3 (two records and the marker)", f.LastStableOffset)
	}
	for _, p := range []int32{0, 1} {
		if r := produce12(p, x.epoch, 2, "zombie"); r.ErrorCode != kerr.InvalidProducerEpoch.Code {
			t.Errorf("zombie on t-%d: %v, want INVALID_PRODUCER_EPOCH", p, kerr.ErrorForCode(r.ErrorCode))
		}
	}
	if p := produce12(1, er.ProducerEpoch, 0, "next"); p.ErrorCode != 0 {
		t.Fatalf("next transaction: %v", kerr.ErrorForCode(p.ErrorCode))
	}
}

// TestTxnOffsetCommitV5ImplicitAdd: a TxnOffsetCommit v5 needs no
// AddOffsetsToTxn: the group coordinator adds the group's partition to
// the transaction, and the offsets count once EndTxn v5 committed it.
func TestTxnOffsetCommitV5ImplicitAdd(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	x, code := h.initTxn("tx", 60000)
	must(t, "InitProducerId", code)
	commit := func(version int16, epoch int16) int16 {
		req := kmsg.NewPtrTxnOffsetCommitRequest()
		req.SetVersion(version)
		req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch, req.Generation = x.id, "g", x.pid, epoch, -1
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset = 0, 42
		req.Topics = []kmsg.TxnOffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{rp}}}
		resp := rt[*kmsg.TxnOffsetCommitResponse](h, req)
		return resp.Topics[0].Partitions[0].ErrorCode
	}
	must(t, "TxnOffsetCommit v5", commit(5, x.epoch))
	st, _ := h.b.Transactions().Get("tx")
	if st.State != txn.Ongoing || st.ClientTV != 2 || len(st.Partitions) != 1 || st.Partitions[0].Topic != OffsetsTopic {
		t.Fatalf("after TxnOffsetCommit v5: %s", st.Describe())
	}
	end := kmsg.NewPtrEndTxnRequest()
	end.SetVersion(5)
	end.TransactionalID, end.ProducerID, end.ProducerEpoch, end.Commit = x.id, x.pid, x.epoch, true
	er := rt[*kmsg.EndTxnResponse](h, end)
	must(t, "EndTxn v5", er.ErrorCode)
	h.b.Commit()
	fetch := kmsg.NewPtrOffsetFetchRequest()
	fetch.SetVersion(7)
	fetch.Group = "g"
	fetch.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: "t", Partitions: []int32{0}}}
	if of := rt[*kmsg.OffsetFetchResponse](h, fetch); of.Topics[0].Partitions[0].Offset != 42 {
		t.Fatalf("committed offset %d, want 42", of.Topics[0].Partitions[0].Offset)
	}
	// The epoch of the ended transaction is fenced.
	if code := commit(5, x.epoch); code != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("TxnOffsetCommit v5 at the old epoch: %v, want INVALID_PRODUCER_EPOCH", kerr.ErrorForCode(code))
	}
}

// TestTxnOffsetCommitV5AddWriteFails: the in-process implicit add of a
// TxnOffsetCommit v5 cannot write __transaction_state. The transaction
// coordinator answers NOT_COORDINATOR (TransactionStateManager's
// KAFKA_STORAGE_ERROR), and the group coordinator passes it on
// (handleOperationException), not the NOT_ENOUGH_REPLICAS a Produce
// gets.
func TestTxnOffsetCommitV5AddWriteFails(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	x, code := h.initTxn("tx", 60000)
	must(t, "InitProducerId", code)
	h.arm("write", "__transaction_state-", "err=EIO")
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.SetVersion(5)
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch, req.Generation = x.id, "g", x.pid, x.epoch, -1
	rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
	rp.Partition, rp.Offset = 0, 42
	req.Topics = []kmsg.TxnOffsetCommitRequestTopic{{Topic: "t", Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{rp}}}
	got := rt[*kmsg.TxnOffsetCommitResponse](h, req).Topics[0].Partitions[0].ErrorCode
	if got != kerr.NotCoordinator.Code {
		t.Fatalf("TxnOffsetCommit v5 whose add failed to write: %v, want NOT_COORDINATOR", kerr.ErrorForCode(got))
	}
}

// TestVerifyErrors: what a failed verification or implicit add answers,
// per API, as Kafka's AddPartitionsToTxnManager hands the coordinator's
// error on (coordinatorError) and ReplicaManager.handleProduceAppend
// (Produce) or CoordinatorOperationExceptionHelper.handleOperationException
// (TxnOffsetCommit) translate it.
func TestVerifyErrors(t *testing.T) {
	for _, c := range []struct {
		from                      *kerr.Error
		produce, produceAdd, txno *kerr.Error
	}{
		{kerr.NetworkException, kerr.NotEnoughReplicas, kerr.NotEnoughReplicas, kerr.CoordinatorLoadInProgress},
		{kerr.CoordinatorNotAvailable, kerr.NotEnoughReplicas, kerr.NotEnoughReplicas, kerr.CoordinatorNotAvailable},
		{kerr.NotCoordinator, kerr.NotEnoughReplicas, kerr.NotEnoughReplicas, kerr.NotCoordinator},
		{kerr.CoordinatorLoadInProgress, kerr.NotEnoughReplicas, kerr.NotEnoughReplicas, kerr.CoordinatorLoadInProgress},
		{kerr.ConcurrentTransactions, kerr.NotEnoughReplicas, kerr.ConcurrentTransactions, kerr.ConcurrentTransactions},
		{kerr.ProducerFenced, kerr.InvalidProducerEpoch, kerr.InvalidProducerEpoch, kerr.InvalidProducerEpoch},
		{kerr.InvalidTxnState, kerr.InvalidTxnState, kerr.InvalidTxnState, kerr.InvalidTxnState},
		{kerr.InvalidProducerIDMapping, kerr.InvalidProducerIDMapping, kerr.InvalidProducerIDMapping, kerr.InvalidProducerIDMapping},
		{kerr.UnknownTopicOrPartition, kerr.UnknownTopicOrPartition, kerr.UnknownTopicOrPartition, kerr.CoordinatorNotAvailable},
		{kerr.NotEnoughReplicas, kerr.NotEnoughReplicas, kerr.NotEnoughReplicas, kerr.CoordinatorNotAvailable},
		{kerr.RequestTimedOut, kerr.RequestTimedOut, kerr.RequestTimedOut, kerr.CoordinatorNotAvailable},
		{kerr.NotLeaderForPartition, kerr.NotLeaderForPartition, kerr.NotLeaderForPartition, kerr.NotCoordinator},
		{kerr.KafkaStorageError, kerr.KafkaStorageError, kerr.KafkaStorageError, kerr.NotCoordinator},
		{kerr.MessageTooLarge, kerr.MessageTooLarge, kerr.MessageTooLarge, kerr.UnknownServerError},
	} {
		code := coordinatorError(c.from.Code)
		if got := produceVerifyError(code, false); got != c.produce.Code {
			t.Errorf("%s: Produce v11 %v, want %s", c.from.Message, kerr.ErrorForCode(got), c.produce.Message)
		}
		if got := produceVerifyError(code, true); got != c.produceAdd.Code {
			t.Errorf("%s: Produce v12 %v, want %s", c.from.Message, kerr.ErrorForCode(got), c.produceAdd.Message)
		}
		if got := offsetCommitError(code); got != c.txno.Code {
			t.Errorf("%s: TxnOffsetCommit %v, want %s", c.from.Message, kerr.ErrorForCode(got), c.txno.Message)
		}
	}
}
