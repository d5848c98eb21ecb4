package coordinator

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
)

// Transactions is the transaction coordinator in a broker (KIP-98):
// core/txn's state machine and its records in __transaction_state
// (txn.Topic).
type Transactions struct {
	*txn.Coordinator
	h Host
}

// TxnLinks are what the transaction coordinator needs beyond its Host:
// the way its markers reach the partition leaders (Kafka's
// TransactionMarkerChannelManager), producer ids (handed out in blocks by
// a cluster's controller), and the __consumer_offsets partition of a
// group, which AddOffsetsToTxn puts in the transaction.
type TxnLinks struct {
	Markers        txn.MarkerWriter
	ProducerIDs    func() (int64, error)
	GroupPartition func(groupID string) int32
}

// NewTransactions builds the transaction coordinator from the host's
// settings, with as many partitions as __transaction_state has (the
// topic's count wins over a changed setting). A Prepare record is acted on
// once Host.Durable says so, and the markers carry the partition's leader
// epoch as the coordinator epoch.
func NewTransactions(h Host, l TxnLinks, now int64) *Transactions {
	s := h.Settings()
	partitions := int32(s.Int64("transaction.state.log.num.partitions"))
	if n, ok := h.Local(txn.Topic); ok {
		partitions = n
	}
	t := &Transactions{h: h}
	t.Coordinator = txn.New(txn.Config{
		Partitions:       partitions,
		MaxTimeoutMs:     int32(s.Int64("transaction.max.timeout.ms")),
		AbortIntervalMs:  s.Int64("transaction.abort.timed.out.transaction.cleanup.interval.ms"),
		ExpirationMs:     s.Int64("transactional.id.expiration.ms"),
		ExpireIntervalMs: s.Int64("transaction.remove.expired.transaction.cleanup.interval.ms"),
		Log:              txnLog{h},
		Markers:          l.Markers,
		Durable: func(p int32, offset int64) bool {
			return h.Durable(txn.Topic, p, offset)
		},
		ProducerIDs:      l.ProducerIDs,
		CoordinatorEpoch: func(p int32) int32 { return h.LeaderEpoch(txn.Topic, p) },
		PartitionExists: func(topic string, p int32) bool {
			_, n, ok := h.Topic(topic)
			return ok && p >= 0 && p < n
		},
		GroupPartition: l.GroupPartition,
		Logf:           h.Logf,
	}, now)
	return t
}

type txnLog struct{ h Host }

func (l txnLog) Append(p int32, batch record.Batch) (int64, error) {
	return l.h.Append(txn.Topic, p, batch)
}

// Load rebuilds every transaction from the __transaction_state partitions
// this broker keeps, at startup on a single broker, and finishes those
// decided but not complete: their Prepare records are durable, they were
// read back. It runs after the partitions and the group coordinator are
// loaded, so the markers it writes land where they belong. In a cluster a
// partition's transactions are loaded when this broker becomes its leader
// (Replay).
func (t *Transactions) Load(now int64) error {
	if ok, err := replayLocal(t.h, txn.Topic, t.Replay); !ok || err != nil {
		return err
	}
	if n := len(t.IDs()); n > 0 {
		t.h.Logf("loaded %d transactional ids from %s", n, txn.Topic)
	}
	t.WriteMarkers(now)
	return nil
}

// Replay rebuilds the transactions of one __transaction_state partition
// from its whole log and hands the decided ones their markers again
// (txn.Coordinator.Recover), even when the log could not be read to its
// end.
func (t *Transactions) Replay(p int32) error {
	err := Records(t.h, txn.Topic, p, func(off int64, r record.Record) {
		t.Coordinator.Replay(p, off, r.Key, r.Value)
	})
	t.Recover(p)
	return err
}

// Owns reports whether this broker coordinates a transactional id: it
// leads the id's __transaction_state partition (always, on a single
// broker).
func (t *Transactions) Owns(id string) bool {
	return t.h.Owns(txn.Topic, t.PartitionFor(id))
}

// MarkForeign answers NOT_COORDINATOR for the transactions of a batched
// AddPartitionsToTxn answer (v4+, sent by brokers verifying a produce)
// that this broker does not coordinate; the coordinator knows nothing of
// them.
func (t *Transactions) MarkForeign(resp kmsg.Response) {
	ar, ok := resp.(*kmsg.AddPartitionsToTxnResponse)
	if !ok {
		return
	}
	for i := range ar.Transactions {
		tx := &ar.Transactions[i]
		if t.Owns(tx.TransactionalID) {
			continue
		}
		for j := range tx.Topics {
			for k := range tx.Topics[j].Partitions {
				tx.Topics[j].Partitions[k].ErrorCode = kerr.NotCoordinator.Code
			}
		}
	}
}
