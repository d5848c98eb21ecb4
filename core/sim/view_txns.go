package sim

import (
	"maps"
	"slices"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/txn"
	"github.com/gregor-kafka/gregor/core/view"
)

// txnViews reads every transactional id from the coordinator in charge
// of it (view.TxnOf).
func (w *World) txnViews() []view.Txn {
	var out []view.Txn
	w.eachHeld(txn.Topic, func(b *broker.Broker) []string { return b.Transactions().IDs() },
		func(b *broker.Broker, id string) int32 { return b.Transactions().PartitionFor(id) },
		func(n *Node, id string) {
			if t, ok := view.TxnOf(n.Name, n.Broker.Transactions(), id); ok {
				out = append(out, t)
			}
		})
	return out
}

// eachHeld calls fn once per id (a group or a transactional id) that a
// running broker's coordinator holds, in id order, with the broker in
// charge of it: in a cluster, the leader of its partition of the
// internal topic (a coordinator that lost the partition has unloaded
// it), else the one broker.
func (w *World) eachHeld(topic string, ids func(*broker.Broker) []string, partition func(*broker.Broker, string) int32, fn func(*Node, string)) {
	held := map[string]*Node{}
	for _, n := range w.nodes {
		if !n.Up || n.Broker == nil {
			continue
		}
		for _, id := range ids(n.Broker) {
			if held[id] == nil && w.holds(n, topic, partition(n.Broker, id)) {
				held[id] = n
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(held)) {
		fn(held[id], id)
	}
}

// holds reports whether n's coordinator is the one in charge of an
// internal topic's partition: always in a single-broker world, the
// partition's leader in a cluster.
func (w *World) holds(n *Node, topic string, p int32) bool {
	if w.cl == nil {
		return true
	}
	l := w.Leader(topic, p)
	return l == nil || l == n
}

// producerViews is what each simulated producer knows of its producer
// id, epoch, sequences and transaction, in creation order.
func (w *World) producerViews() []view.ClientProducer {
	var out []view.ClientProducer
	for _, name := range w.order {
		p, ok := w.clients[name].(*producer)
		if !ok {
			continue
		}
		v := view.ClientProducer{Name: name, Idempotent: p.idempotent, ProducerID: p.pid, Epoch: p.epoch}
		for _, tp := range slices.Sorted(maps.Keys(p.seqs)) {
			v.NextSeq = append(v.NextSeq, view.Seq{Partition: tp, Next: p.seqs[tp]})
		}
		if p.txn != nil {
			v.TransactionalID, v.Fenced = p.txn.id, p.txn.fenced
			v.InTxn = slices.Sorted(maps.Keys(p.txn.added))
		}
		out = append(out, v)
	}
	return out
}
