package sim

import (
	"maps"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/txn"
	"github.com/gregor-kafka/gregor/core/view"
)

// txnViews reads every transactional id from the coordinator that holds
// it: in a cluster, the leader of its __transaction_state partition (a
// coordinator that lost the partition has unloaded it).
func (w *World) txnViews() []view.Txn {
	var out []view.Txn
	seen := map[string]bool{}
	for _, n := range w.nodes {
		if !n.Up || n.Broker == nil || n.Broker.Transactions() == nil {
			continue
		}
		co := n.Broker.Transactions()
		for _, id := range co.IDs() {
			if seen[id] || !w.holds(n, txn.Topic, co.PartitionFor(id)) {
				continue
			}
			m, ok := co.Get(id)
			if !ok {
				continue
			}
			seen[id] = true
			t := view.Txn{ID: id, Coordinator: n.Name, Partition: co.PartitionFor(id), State: m.State.Name(),
				ProducerID: m.ProducerID, Epoch: m.ProducerEpoch, TimeoutMs: m.TimeoutMs}
			for _, tp := range m.Partitions {
				t.Partitions = append(t.Partitions, tp.String())
			}
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b view.Txn) int { return strings.Compare(a.ID, b.ID) })
	return out
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
