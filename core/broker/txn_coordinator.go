package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The transaction coordinator's glue (KIP-98): core/txn holds the state
// machine; this file builds it from the broker's settings, replays
// __transaction_state into it at startup, routes the coordinator APIs to
// it, writes its markers through this broker's WriteTxnMarkers once the
// decision is durable (see commitTxn), and holds answers given after a
// write that must be synced until the next Commit.
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
type txnLog struct{ b *Broker }

func (l txnLog) Append(p int32, batch record.Batch) (int64, error) {
	return l.b.AppendInternal(TransactionStateTopic, p, batch)
}

// initTxn builds the coordinator and, on a single broker, rebuilds every
// transaction from __transaction_state and finishes those left decided
// but not complete. It runs after the partitions and the group
// coordinator are loaded, so the markers it writes land where they
// belong. In a cluster a partition's transactions are loaded when this
// broker becomes its leader (coordinators.go).
func (b *Broker) initTxn(now int64) error {
	s := b.cfg.Settings
	partitions := int32(s.Int64("transaction.state.log.num.partitions"))
	if t := b.topics[TransactionStateTopic]; t != nil {
		partitions = int32(len(t.Partitions))
	}
	b.txn = txn.New(txn.Config{
		Partitions:       partitions,
		MaxTimeoutMs:     int32(s.Int64("transaction.max.timeout.ms")),
		AbortIntervalMs:  s.Int64("transaction.abort.timed.out.transaction.cleanup.interval.ms"),
		ExpirationMs:     s.Int64("transactional.id.expiration.ms"),
		ExpireIntervalMs: s.Int64("transaction.remove.expired.transaction.cleanup.interval.ms"),
		Log:              txnLog{b},
		Markers:          markerChannel{b},
		Durable:          b.txnRecordDurable,
		ProducerIDs:      b.txnProducerID,
		CoordinatorEpoch: func(p int32) int32 {
			if part := b.topics[TransactionStateTopic].partition(p); part != nil {
				return part.LeaderEpoch
			}
			return 0
		},
		PartitionExists: b.partitionExists,
		GroupPartition:  b.groups.PartitionFor,
		Logf:            b.cfg.Logf,
	}, now)
	hooks := TxnHooks{Completed: b.txnCompleted, Add: b.txn.Add}
	if s.Bool("transaction.partition.verification.enable") {
		hooks.Verify = b.txn.Verify
	}
	b.SetTxnHooks(hooks)
	t := b.topics[TransactionStateTopic]
	if t == nil {
		return nil
	}
	for _, p := range t.Partitions {
		if err := b.replayTxnState(p.Index); err != nil {
			return err
		}
	}
	if n := len(b.txn.IDs()); n > 0 {
		b.cfg.Logf("loaded %d transactional ids from %s", n, TransactionStateTopic)
	}
	b.txn.WriteMarkers(now) // the Prepare records are durable: they were read back
	return nil
}

// replayTxnState rebuilds the transactions of one __transaction_state
// partition and hands the decided ones their markers again.
func (b *Broker) replayTxnState(p int32) error {
	err := b.ReplayInternal(TransactionStateTopic, p, func(off int64, r record.Record) {
		b.txn.Replay(p, off, r.Key, r.Value)
	})
	b.txn.Recover(p)
	return err
}

// txnRecordDurable reports whether a __transaction_state record may be
// acted on: in a cluster once the ISR has it (the high watermark passed
// it), on a single broker always (markers go out after the Commit that
// synced it).
func (b *Broker) txnRecordDurable(p int32, offset int64) bool {
	if b.cl == nil {
		return true
	}
	part := b.topics[TransactionStateTopic].partition(p)
	return part != nil && b.leads(part) && part.HighWatermark > offset
}

// partitionExists reports whether a topic partition exists in the
// cluster (on this broker, for a single one).
func (b *Broker) partitionExists(topic string, p int32) bool {
	_, ok := b.image.replicas(topic, p)
	return ok
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
func (b *Broker) Transactions() *txn.Coordinator { return b.txn }

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
	if _, err := b.internalTopic(TransactionStateTopic); err != nil {
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
		b.markForeignTransactions(resp)
		b.answerAfterWrites(*r, resp, b.cfg.Settings.Int64("request.timeout.ms"))
	})
	return nil
}

// markForeignTransactions answers NOT_COORDINATOR for the transactions of
// a batched AddPartitionsToTxn (v4+, sent by brokers verifying a produce)
// that another broker coordinates; this coordinator knows nothing of them.
func (b *Broker) markForeignTransactions(resp kmsg.Response) {
	ar, ok := resp.(*kmsg.AddPartitionsToTxnResponse)
	if !ok || b.cl == nil {
		return
	}
	for i := range ar.Transactions {
		tx := &ar.Transactions[i]
		if b.coordinates(TransactionStateTopic, b.txn.PartitionFor(tx.TransactionalID)) {
			continue
		}
		for j := range tx.Topics {
			for k := range tx.Topics[j].Partitions {
				tx.Topics[j].Partitions[k].ErrorCode = kerr.NotCoordinator.Code
			}
		}
	}
}
