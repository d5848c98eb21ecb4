package sim

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/group"
	pstate "github.com/gregor-kafka/gregor/core/producer"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
)

// showTxn serves the views of idempotence and transactions:
//
//	show records TOPIC-P    every batch: producer id, epoch, sequence,
//	                        the transactional bit, control markers, and
//	                        the records of __transaction_state and
//	                        __consumer_offsets decoded
//	show producers TOPIC-P  the partition's producer state
//	show txn ID             the coordinator's state of a transactional id
//	show txn-log ID         the id's records in __transaction_state, every
//	                        field decoded
func (w *World) showTxn(c command, what string) (bool, error) {
	switch what {
	case "records", "producers":
		tp, err := c.arg(1, "topic-partition")
		if err != nil {
			return true, err
		}
		n, p, err := w.partitionOf(c, tp)
		if err != nil {
			return true, err
		}
		if what == "records" {
			return true, w.showRecords(n, p)
		}
		w.showProducers(n, p)
		return true, nil
	case "txn", "txn-log":
		id, err := c.arg(1, "transactional id")
		if err != nil {
			return true, err
		}
		n, err := w.coordinatorNode(c, txn.Topic, func(n *Node) int32 { return n.Broker.Transactions().PartitionFor(id) })
		if err != nil {
			return true, err
		}
		if what == "txn-log" {
			return true, w.showTxnLog(n, id) // txnlog_view.go
		}
		co := n.Broker.Transactions()
		m, ok := co.Get(id)
		if !ok {
			w.notef(n.Name, "view", "transactional.id %s: unknown to the coordinator", id)
			return true, nil
		}
		w.notef(n.Name, "view", "transactional.id %s (in %s-%d): %s", id, txn.Topic, co.PartitionFor(id), m.Describe())
		return true, nil
	}
	return false, nil
}

func (w *World) showRecords(n *Node, p *broker.Partition) error {
	l := p.Log()
	w.notef(n.Name, "view", "%s leo %d, hw %d, lso %d", p, l.EndOffset(), p.HighWatermark, p.LastStableOffset())
	describe := describeBatch
	if l.Config().Compact && p.Topic.Name != txn.Topic && p.Topic.Name != group.Topic {
		describe = describeCompacted // compactcmds.go
	}
	return l.Scan(l.StartOffset(), func(b record.Batch) error {
		w.notef(n.Name, "view", "  %s", describe(p.Topic.Name, b))
		return nil
	})
}

// describeBatch is one line per batch of a log.
func describeBatch(topic string, b record.Batch) string {
	span := fmt.Sprintf("offset %d", b.BaseOffset())
	if b.LastOffset() > b.BaseOffset() {
		span = fmt.Sprintf("offsets %d..%d", b.BaseOffset(), b.LastOffset())
	}
	var who []string
	if b.ProducerID() >= 0 {
		who = append(who, fmt.Sprintf("pid=%d epoch=%d", b.ProducerID(), b.ProducerEpoch()))
		if !b.IsControl() && b.BaseSequence() >= 0 {
			who = append(who, fmt.Sprintf("seq=%d", b.BaseSequence()))
		}
	}
	if b.IsTransactional() && !b.IsControl() {
		who = append(who, "transactional")
	}
	if b.IsControl() {
		kind, epoch, err := pstate.DecodeMarker(b)
		if err != nil {
			return fmt.Sprintf("%s: control batch: %v", span, err)
		}
		name := map[int16]string{pstate.ControlAbort: "ABORT", pstate.ControlCommit: "COMMIT"}[kind]
		return fmt.Sprintf("%s: control %s marker %s coordinator_epoch=%d", span, name, strings.Join(who, " "), epoch)
	}
	recs, err := b.Records()
	if err != nil {
		return fmt.Sprintf("%s: %v", span, err)
	}
	var vals []string
	for _, r := range recs {
		vals = append(vals, describeRecord(topic, r))
	}
	head := span
	if len(who) > 0 {
		head += " " + strings.Join(who, " ")
	}
	return head + ": " + strings.Join(vals, " ")
}

func describeRecord(topic string, r record.Record) string {
	switch topic {
	case txn.Topic:
		id, m, err := txn.Decode(r.Key, r.Value)
		switch {
		case err != nil:
			return fmt.Sprintf("<%v>", err)
		case m == nil:
			return id + " (tombstone)"
		}
		return id + " " + m.Describe()
	case group.Topic:
		e, err := group.DecodeEntry(r.Key, r.Value)
		switch {
		case err != nil:
			return fmt.Sprintf("<%v>", err)
		case e.IsOffset && e.OffsetValue != nil:
			return fmt.Sprintf("group=%s %s-%d=%d", e.Group, e.Topic, e.Partition, e.OffsetValue.Offset)
		case e.IsOffset:
			return fmt.Sprintf("group=%s %s-%d (tombstone)", e.Group, e.Topic, e.Partition)
		}
		return fmt.Sprintf("group=%s metadata", e.Group)
	}
	return fmt.Sprintf("%q", r.Value)
}

func (w *World) showProducers(n *Node, p *broker.Partition) {
	es := p.Producers().Entries()
	if len(es) == 0 {
		w.notef(n.Name, "view", "%s: no producers", p)
	}
	for _, e := range es {
		open := "none"
		if e.TxnFirstOffset >= 0 {
			open = fmt.Sprintf("since offset %d", e.TxnFirstOffset)
		}
		var seqs []string
		for _, b := range e.Batches {
			seqs = append(seqs, fmt.Sprintf("%d..%d@%d", b.FirstSeq, b.LastSeq, b.FirstOffset))
		}
		w.notef(n.Name, "view", "%s pid=%d epoch=%d last_seq=%d coordinator_epoch=%d open_txn=%s batches=[%s]",
			p, e.ProducerID, e.Epoch, e.LastSeq(), e.CoordinatorEpoch, open, strings.Join(seqs, " "))
	}
}
