package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// TxnOffsetCommit v0-5 (KIP-98; v3 adds the member and generation,
// KIP-447). Sent by a transactional producer to the group's coordinator
// after AddOffsetsToTxn put the group's __consumer_offsets partition in
// the transaction: the offsets are written there as a transactional batch
// and become the group's committed offsets only when the commit marker
// reaches that partition (core/group/txn.go). v5 comes without
// AddOffsetsToTxn (transaction version 2, KIP-890 part 2): the group
// coordinator adds the partition to the transaction itself first, as a
// partition leader does for a Produce v12 (verify_txn.go).
func init() {
	register(28, api{min: 0, max: 5, serve: handleTxnOffsetCommit, acl: txnOffsetCommitACL{}})
}

func handleTxnOffsetCommit(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.TxnOffsetCommitRequest)
	if err := b.image.localInternalTopic(OffsetsTopic); err != nil {
		b.cfg.Logf("creating %s: %v", OffsetsTopic, err)
		return wire.ErrorResponse(req, kerr.CoordinatorNotAvailable.Code)
	}
	if !b.coordinatesGroup(req.Group) {
		return wire.ErrorResponse(req, kerr.NotCoordinator.Code)
	}
	var failed kmsg.Response
	b.collectWrites(func() {
		if req.Version >= 5 {
			code, held := b.addOffsetsPartition(r, req)
			if held {
				return
			}
			if code != 0 {
				failed = wire.ErrorResponse(req, code)
				return
			}
		}
		b.groupReply(*r, b.groups.TxnOffsetCommit(b.now, req))
	})
	return failed
}

// addOffsetsPartition puts the group's __consumer_offsets partition in
// the producer's transaction for a TxnOffsetCommit v5+: in-process when
// this broker coordinates the transactional id, otherwise with
// AddPartitionsToTxn v5 to its coordinator, holding the request until the
// answer (held). It returns the error to answer with: the coordinator's,
// as Kafka's group coordinator answers a failed verification
// (offsetCommitError); a coordinator it cannot reach is
// COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS, which
// transactional clients retry, not the NOT_ENOUGH_REPLICAS a Produce
// gets.
func (b *Broker) addOffsetsPartition(r *Request, req *kmsg.TxnOffsetCommitRequest) (code int16, held bool) {
	k := verifyKey{req.ProducerID, req.ProducerEpoch, OffsetsTopic, b.groups.PartitionFor(req.Group)}
	if b.txn == nil {
		return kerr.CoordinatorNotAvailable.Code, false
	}
	if b.image.coordinatorHere(TransactionStateTopic, b.txn.PartitionFor(req.TransactionalID)) {
		if b.txn.Ending(req.TransactionalID) && b.retryAdd(r, handleTxnOffsetCommit) {
			return 0, true
		}
		return offsetCommitError(coordinatorError(b.txn.Add(req.TransactionalID, k.pid, k.epoch, k.topic, k.partition))), false
	}
	if code, ok := r.takeVerdict(k); ok {
		return offsetCommitError(code), false
	}
	ask := kmsg.NewAddPartitionsToTxnRequestTransaction()
	ask.TransactionalID, ask.ProducerID, ask.ProducerEpoch = req.TransactionalID, k.pid, k.epoch
	ask.Topics = []kmsg.AddPartitionsToTxnRequestTransactionTopic{{Topic: k.topic, Partitions: []int32{k.partition}}}
	b.askCoordinator(ask, []verifyKey{k}, true, r, handleTxnOffsetCommit)
	return 0, true
}

// txnOffsetCommitACL: WRITE on the transactional id, then the group and
// its topics as for OffsetCommit (groupThenTopics).
type txnOffsetCommitACL struct{}

func (txnOffsetCommitACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.TxnOffsetCommitRequest)
	if deny := b.refuseTxnID(r, q.TransactionalID); deny != nil {
		return deny, nil
	}
	return b.groupThenTopics(r, kmsg.ACLOperationRead, q.Group, &q.Topics)
}
