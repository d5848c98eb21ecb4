package sim

import (
	"fmt"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
)

// showTxnLog: show txn-log ID prints the records of a transactional id in
// its __transaction_state partition, every field of Kafka's
// TransactionLogKey and TransactionLogValue decoded: producer id and
// epoch, state, partitions, timeout, and the transaction's start and last
// update timestamps (KIP-98). These records are all a coordinator has
// after a restart or a failover: it replays them in offset order, and the
// last one is the id's state. A tombstone (null value, written when the
// id expires after transactional.id.expiration.ms) says so, with the
// delete horizon the cleaner stamped on it (KIP-534).
func (w *World) showTxnLog(n *Node, id string) error {
	return w.scanInternal(n, txn.Topic, id, func(off int64, b record.Batch, r *record.Record) {
		if r == nil {
			w.notef(n.Name, "view", "  offset %d: control batch", off)
			return
		}
		key, m, err := txn.Decode(r.Key, r.Value)
		switch {
		case err != nil:
			w.notef(n.Name, "view", "  offset %d: <%v>", off, err)
		case key != id:
		case m == nil:
			line := fmt.Sprintf("  offset %d: TxnMetadataKey(%s) -> null (tombstone)", off, key)
			if h, ok := b.DeleteHorizon(); ok {
				line += fmt.Sprintf(" delete_horizon=%d", h)
			}
			w.notef(n.Name, "view", "%s", line)
		default:
			w.notef(n.Name, "view", "  offset %d: TxnMetadataKey(%s) -> TxnMetadataValue(%s txn_start=%d last_update=%d)",
				off, key, m.Describe(), m.StartTimestamp, m.LastUpdateTimestamp)
		}
	})
}

// scanInternal prints which partition of an internal topic holds id
// (abs(hashCode) % partitions, as Kafka's coordinators compute it) and
// calls fn for every record of that partition in offset order, with its
// batch; a control batch comes with a nil record. The caller keeps the
// records of id.
func (w *World) scanInternal(n *Node, topic, id string, fn func(off int64, b record.Batch, r *record.Record)) error {
	t := n.Broker.Topic(topic)
	if t == nil {
		w.notef(n.Name, "view", "%s does not exist yet", topic)
		return nil
	}
	np := int32(len(t.Partitions))
	p := t.Partitions[group.PartitionFor(id, np)]
	l := p.Log()
	w.notef(n.Name, "view", "%s: abs(hashCode(%q)=%d) %% %d = %d, leo %d", p, id, group.JavaStringHashCode(id), np, p.Index, l.EndOffset())
	return l.Scan(l.StartOffset(), func(b record.Batch) error {
		if b.IsControl() {
			fn(b.BaseOffset(), b, nil)
			return nil
		}
		recs, err := b.Records()
		if err != nil {
			return err
		}
		for i := range recs {
			fn(b.BaseOffset()+int64(recs[i].OffsetDelta), b, &recs[i])
		}
		return nil
	})
}
