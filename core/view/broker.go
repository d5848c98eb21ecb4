package view

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/broker"
)

// Partitions reads what a running broker holds: every partition's log,
// segments, sparse indexes and producers, in the broker's topic order.
// The simulator and the native server build their views with it alike.
func Partitions(b *broker.Broker) []Partition {
	var out []Partition
	for _, t := range b.Topics() {
		for _, p := range t.Partitions {
			l := p.Log()
			pv := Partition{
				Name: p.String(), Start: l.StartOffset(), LEO: l.EndOffset(), HW: p.HighWatermark, LSO: p.LastStableOffset(),
				Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: ids(p.Replicas), InSyncReps: ids(p.ISR),
			}
			segs := l.Segments()
			for i, s := range segs {
				sv := Segment{Name: s.Name, Base: s.BaseOffset, Next: s.NextOffset, Size: s.Size, Active: i == len(segs)-1, LargestTimestamp: s.LargestTimestamp}
				for _, e := range s.IndexEntries {
					sv.Index = append(sv.Index, Entry{fmt.Sprint(e.Offset), fmt.Sprint(e.Position)})
				}
				for _, e := range s.TimeIndexEntries {
					sv.TimeIndex = append(sv.TimeIndex, Entry{fmt.Sprint(e.Timestamp), fmt.Sprint(e.Offset)})
				}
				pv.Segments = append(pv.Segments, sv)
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

func ids(xs []int32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}
