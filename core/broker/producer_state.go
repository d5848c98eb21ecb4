package broker

import (
	"errors"
	"fmt"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/producer"
	"github.com/gregor-kafka/gregor/core/record"
)

// producerIDExpirationMs is Kafka's producer.id.expiration.ms default (one
// day, KIP-854): a producer idle that long, with no open transaction, is
// forgotten by the partitions it wrote to.
const producerIDExpirationMs = 24 * 60 * 60 * 1000

// TxnHooks connect the partition side of transactions to the coordinators
// running on this broker. Both are optional.
type TxnHooks struct {
	// Verify is asked before the first transactional batch of a
	// producer's transaction is appended to a partition (KIP-890 part 1,
	// transaction.partition.verification.enable): 0 if the transaction
	// coordinator has the partition in the producer's ongoing
	// transaction, otherwise the error code to answer the Produce with
	// (INVALID_TXN_STATE, INVALID_PRODUCER_EPOCH, ...). Unset, every
	// transactional batch is accepted as Kafka before 3.6 did.
	Verify func(transactionalID string, producerID int64, epoch int16, topic string, partition int32) int16
	// Add puts the partition in the producer's transaction before the
	// first batch of a Produce v12+ is appended there (KIP-890 part 2:
	// the producer sends no AddPartitionsToTxn): 0, or the error code to
	// answer with. It is asked whatever Verify's setting.
	Add func(transactionalID string, producerID int64, epoch int16, topic string, partition int32) int16
	// Completed is told, after the append, about every transaction marker
	// written to a partition of this broker. The group coordinator uses it
	// to make offsets committed inside a transaction visible (commit) or
	// drop them (abort) when the partition is one of __consumer_offsets
	// (KIP-98, KIP-447).
	Completed func(topic string, partition int32, producerID int64, commit bool)
}

// SetTxnHooks installs the coordinators' hooks.
func (b *Broker) SetTxnHooks(h TxnHooks) { b.txnHooks = h }

// loadProducerState rebuilds a partition's producer state after its log
// is opened (Kafka's LogLoader + ProducerStateManager.truncateAndReload):
// the newest readable snapshot at or below the log end (and at or below
// the first segment whose .txnindex was found corrupt), then a replay of
// the log from that offset, which also puts back .txnindex entries for the
// aborts it meets. Without any snapshot the whole log is replayed. The log
// then snapshots this state at every roll and when it closes.
func (b *Broker) loadProducerState(p *Partition) error {
	l := p.log
	limit := l.EndOffset()
	if s := l.TxnIndexSuspect(); s >= 0 {
		limit = min(limit, s)
	}
	st, from := producer.New(), int64(0)
	snaps := l.SnapshotOffsets()
	for i := len(snaps) - 1; i >= 0; i-- {
		if snaps[i] > limit {
			continue
		}
		data, err := l.ReadSnapshot(snaps[i])
		if err == nil {
			var loaded *producer.State
			if loaded, err = producer.Load(data); err == nil {
				st, from = loaded, snaps[i]
				break
			}
		}
		if errors.Is(err, producer.ErrSnapshot) {
			b.cfg.Logf("recovery: %s: deleting snapshot %s: %v", p, log.FileName(snaps[i], log.SnapshotSuffix), err)
			if err := l.DeleteSnapshot(snaps[i]); err != nil {
				return err
			}
			continue
		}
		return err
	}
	replayed := 0
	err := l.Scan(from, func(bt record.Batch) error {
		replayed++
		return applyBatch(l, st, bt)
	})
	if err != nil {
		return fmt.Errorf("broker: rebuilding producer state of %s: %w", p, err)
	}
	if replayed > 0 { // a snapshot at the log end, as a clean shutdown leaves, is nothing to tell
		b.cfg.Logf("recovery: %s: producer state of %d producers from offset %d, %d batches replayed", p, st.Len(), from, replayed)
	}
	p.producers = st
	l.SetSnapshotter(func(int64) []byte { return p.producers.Snapshot() })
	return nil
}

// applyBatch updates st with a batch now in l, and indexes an abort.
func applyBatch(l *log.Log, st *producer.State, bt record.Batch) error {
	c, done, err := st.Apply(bt)
	if err != nil {
		return err
	}
	if done && c.Aborted {
		return l.AddAbortedTxn(log.AbortedTxn{
			ProducerID: c.ProducerID, FirstOffset: c.FirstOffset,
			LastOffset: c.LastOffset, LastStableOffset: c.LastStableOffset,
		})
	}
	return nil
}

// lastStableOffset is the offset below which no transaction is open and
// every marker is below the high watermark (KIP-98): read_committed
// fetches stop there and ListOffsets latest answers it.
func (p *Partition) lastStableOffset() int64 {
	if p.producers == nil {
		return p.HighWatermark
	}
	return p.producers.LastStableOffset(p.HighWatermark)
}

// Producers is the partition's producer state, for views and tests.
func (p *Partition) Producers() *producer.State { return p.producers }

// expireProducers forgets idle producers on every partition.
func (b *Broker) expireProducers() {
	for _, p := range b.partitions() {
		if p.producers == nil {
			continue
		}
		if gone := p.producers.Expire(b.now, producerIDExpirationMs); len(gone) > 0 {
			b.cfg.Logf("%s: expired producer ids %v", p, gone)
		}
	}
}
