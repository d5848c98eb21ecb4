package view

import (
	"fmt"
	"slices"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/share"
	"github.com/gregor-kafka/gregor/core/txn"
)

// Partitions reads what a running broker holds: every partition's log,
// segments, sparse indexes and producers, in the broker's topic order.
// The simulator builds its views with it, the native server with Tail.
func Partitions(b *broker.Broker) []Partition { return partitions(b, false) }

// Tail is Partitions with only the batches at the log's tail: each log is
// read from MaxBatches offsets before its end (so at most MaxBatches+1
// batches, found through the offset index), never from its start, and
// the older batches are not counted (Earlier is -1 when some exist).
// What the native broker can afford to show while real clients write
// (server/live).
func Tail(b *broker.Broker) []Partition { return partitions(b, true) }

func partitions(b *broker.Broker, tail bool) []Partition {
	var out []Partition
	for _, t := range b.Topics() {
		for _, p := range t.Partitions {
			if pv, ok := partitionOf(b, p, tail); ok {
				out = append(out, pv)
			}
		}
	}
	return out
}

// TailOf is one partition as Tail draws it, or false when b holds no
// replica of it: what the console draws of a partition, read at the
// log's tail.
func TailOf(b *broker.Broker, topic string, index int32) (Partition, bool) {
	p := partitionAt(b, topic, index)
	if p == nil {
		return Partition{}, false
	}
	return partitionOf(b, p, true)
}

// partitionOf reads one replica, or false for a slot of a partition
// placed on other brokers (or moved away from this one): it is not this
// broker's replica, so it has no role to draw.
func partitionOf(b *broker.Broker, p *broker.Partition, tail bool) (Partition, bool) {
	if !held(b, p) {
		return Partition{}, false
	}
	t := p.Topic
	l := p.Log()
	pv := Partition{
		Name: p.String(), Start: l.StartOffset(), LEO: l.EndOffset(), HW: p.HighWatermark, LSO: p.LastStableOffset(),
		Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: slices.Clone(p.Replicas), ISR: slices.Clone(p.ISR),
		Internal: InternalTopic(t.Name),
	}
	if im := b.Image(); im != nil {
		if ip := im.Partition(t.Name, p.Index); ip != nil {
			pv.Adding, pv.Removing = slices.Clone(ip.AddingReplicas), slices.Clone(ip.RemovingReplicas)
		}
	}
	segs := l.Segments()
	for i, s := range segs {
		sv := Segment{Name: s.Name, Base: s.BaseOffset, Next: s.NextOffset, Size: s.Size, Active: i == len(segs)-1, LargestTimestamp: s.LargestTimestamp}
		for _, e := range s.IndexEntries {
			sv.Index = append(sv.Index, Entry{Key: fmt.Sprint(e.Offset), Value: fmt.Sprint(e.Position)})
		}
		for _, e := range s.TimeIndexEntries {
			sv.TimeIndex = append(sv.TimeIndex, Entry{Key: fmt.Sprint(e.Timestamp), Value: fmt.Sprint(e.Offset)})
		}
		pv.Segments = append(pv.Segments, sv)
	}
	pv.Earlier = readBatches(p, pv.Segments, segs, tail) // log.go
	if ps := p.Producers(); ps != nil {
		for _, e := range ps.Entries() {
			pv.Producers = append(pv.Producers, Producer{ID: e.ProducerID, Epoch: e.Epoch, LastSeq: e.LastSeq(), Batches: len(e.Batches), TxnFirst: e.TxnFirstOffset})
		}
	}
	return pv, true
}

// InternalTopic reports one of the topics the coordinators keep their
// state in: __consumer_offsets, __transaction_state and
// __share_group_state.
func InternalTopic(name string) bool {
	return name == group.Topic || name == txn.Topic || name == share.StateTopic
}
