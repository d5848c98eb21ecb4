package view

import (
	"fmt"
	"slices"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/txn"
)

// Partitions reads what a running broker holds: every partition's log,
// segments, sparse indexes and producers, in the broker's topic order.
// The simulator and the native server build their views with it alike.
func Partitions(b *broker.Broker) []Partition { return partitions(b, true) }

// Summary is Partitions without the record batches, whose reading scans
// each log from its start: what the native broker can afford to show
// while real clients write (server/live), from memory only.
func Summary(b *broker.Broker) []Partition { return partitions(b, false) }

func partitions(b *broker.Broker, batches bool) []Partition {
	var out []Partition
	for _, t := range b.Topics() {
		for _, p := range t.Partitions {
			l := p.Log()
			pv := Partition{
				Name: p.String(), Start: l.StartOffset(), LEO: l.EndOffset(), HW: p.HighWatermark, LSO: p.LastStableOffset(),
				Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: slices.Clone(p.Replicas), ISR: slices.Clone(p.ISR),
				Internal: t.Name == group.Topic || t.Name == txn.Topic,
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
			if batches {
				pv.Earlier = readBatches(p, pv.Segments, segs) // log.go
			}
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
