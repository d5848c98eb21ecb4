package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/txn"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The transaction APIs' side of the transaction coordinator (KIP-98):
// core/txn holds the state machine and core/coordinator (Transactions)
// builds it, replays __transaction_state into it and finishes the
// transactions left decided; this file routes the coordinator APIs to it
// and holds answers given after a write that must be synced until the
// next Commit. The markers go out through this broker's WriteTxnMarkers
// once the decision is durable (commitTxn, markerChannel).
//
// Served here, each registered from its own file: FindCoordinator key
// type 1 (find_coordinator.go), InitProducerId with a transactional id
// (init_producer_id.go), AddPartitionsToTxn v0-5 (v4+ batched,
// VerifyOnly: KIP-890 part 1; add_partitions_to_txn.go), AddOffsetsToTxn
// v0-4 (add_offsets_to_txn.go), EndTxn v0-5 (end_txn.go),
// DescribeTransactions v0 (describe_transactions.go), ListTransactions
// v0-1 (list_transactions.go), and TxnOffsetCommit v0-5 (txn_offsets.go).
//
// EndTxn v5, Produce v12+ (the implicit add, verify_txn.go),
// AddPartitionsToTxn v5 from a leader and TxnOffsetCommit v5 are
// transaction version 2 (KIP-890 part 2, core/txn tv2.go). As in Kafka
// the coordinator follows the request's version; clients use them when
// the transaction.version feature is finalized at 2 (features.go).

// initTxn builds the coordinator, connects the partitions' side of
// transactions to it (TxnHooks) and, on a single broker, loads every
// transaction from __transaction_state. It runs after the partitions and
// the group coordinator are loaded. In a cluster a partition's
// transactions are loaded when this broker becomes its leader
// (coordinators.go).
func (b *Broker) initTxn(now int64) error {
	b.txn = coordinator.NewTransactions(coordinatorHost{b}, coordinator.TxnLinks{
		Markers:        markerChannel{b},
		ProducerIDs:    b.image.producerID,
		GroupPartition: b.groups.PartitionFor,
	}, now)
	hooks := TxnHooks{Completed: b.txnCompleted, Add: b.txn.Add}
	if b.cfg.Settings.Bool("transaction.partition.verification.enable") {
		hooks.Verify = b.txn.Verify
	}
	b.SetTxnHooks(hooks)
	return b.txn.Load(now)
}

// txnCompleted hears of every marker written here: on __consumer_offsets
// it settles the offsets committed inside the transaction.
func (b *Broker) txnCompleted(topic string, partition int32, producerID int64, commit bool) {
	if topic != OffsetsTopic {
		return
	}
	for _, g := range b.groups.CompleteTxn(partition, producerID, commit) {
		verb := "committed"
		if !commit {
			verb = "dropped"
		}
		b.cfg.Logf("group %s: offsets of producer %d's transaction %s", g, producerID, verb)
	}
}

// Transactions is the transaction coordinator, for views and tests.
func (b *Broker) Transactions() *txn.Coordinator { return b.txn.Coordinator }

// tickTxn aborts transactions past their timeout.
func (b *Broker) tickTxn(now int64) {
	if b.txn != nil {
		b.txn.Tick(now)
	}
}

// commitTxn is the second phase of every decision made since the last
// Commit: the Prepare records have just been synced (in a cluster, those
// the ISR has are durable), so the markers may now be sent and Complete
// recorded. It reports whether it wrote anything, which the caller syncs
// in turn.
func (b *Broker) commitTxn() bool {
	if b.txn == nil || !b.txn.MarkersDue() {
		return false
	}
	b.txn.WriteMarkers(b.now)
	return true
}

// txnCoordinatorFor answers whether this broker coordinates a
// transactional id: the leader of its __transaction_state partition.
func (b *Broker) txnCoordinatorFor(id string) int16 {
	if _, err := b.image.internalTopic(TransactionStateTopic); err != nil {
		return kerr.CoordinatorNotAvailable.Code
	}
	if !b.coordinates(TransactionStateTopic, b.txn.PartitionFor(id)) {
		return kerr.NotCoordinator.Code
	}
	return 0
}

// handleTxn hands a coordinator request to the state machine, after
// checking this broker coordinates the transactional id it names
// (api.txnID).
func handleTxn(b *Broker, r *Request) kmsg.Response {
	if a := handlers[r.Msg.Key()]; a.txnID != nil {
		if id, ok := a.txnID(r.Msg); ok {
			if code := b.txnCoordinatorFor(id); code != 0 {
				return wire.ErrorResponse(r.Msg, code)
			}
		}
	}
	b.collectWrites(func() {
		resp := b.txn.Handle(b.now, r.Msg)
		b.txn.MarkForeign(resp)
		b.answerAfterWrites(*r, resp, b.cfg.Settings.Int64("request.timeout.ms"))
	})
	return nil
}
