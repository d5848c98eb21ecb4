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
	clustered := b.Image() != nil
	for _, t := range b.Topics() {
		for _, p := range t.Partitions {
			if clustered && len(p.Replicas) == 0 {
				// A slot for a partition placed on other brokers (or
				// moved away from this one): it is not this broker's
				// replica, so it has no role to draw.
				continue
			}
			l := p.Log()
			pv := Partition{
				Name: p.String(), Start: l.StartOffset(), LEO: l.EndOffset(), HW: p.HighWatermark, LSO: p.LastStableOffset(),
				Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: slices.Clone(p.Replicas), ISR: slices.Clone(p.ISR),
				Internal: InternalTopic(t.Name),
			}
			if clustered {
				if ip := b.Image().Partition(t.Name, p.Index); ip != nil {
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
					pv.Producers = append(pv.Producers, Producer{ID: e.ProducerID, Epoch: e.Epoch, LastSeq: e.LastSeq(), Batches: len(e.Batches)})
				}
			}
			out = append(out, pv)
		}
	}
	return out
}

// InternalTopic reports one of the topics the coordinators keep their
// state in: __consumer_offsets, __transaction_state and
// __share_group_state.
func InternalTopic(name string) bool {
	return name == group.Topic || name == txn.Topic || name == share.StateTopic
}
