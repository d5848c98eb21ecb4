package view

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/group"
)

// Lag is one partition of a consumer group: the offset it committed and
// how far the partition's high watermark is past it, as kadm and Kafka's
// kafka-consumer-groups.sh count lag.
type Lag struct {
	Topic     string
	Index     int32
	Partition string // "orders-2"
	Member    string // its owner's Name, "" when unassigned
	// Committed is -1 when the group committed nothing for it.
	Committed int64
	// End is the partition's high watermark, and Lag is End - Committed
	// (End when nothing was committed); both are -1 when this broker does
	// not lead the partition, Leader then naming the one that does.
	End, Lag int64
	Leader   int32
}

// LagOf is the lag of every partition g committed or owns (v, g's view,
// names the owners), in topic-partition order. The high watermarks are
// this broker's: those of the partitions it leads.
func LagOf(b *broker.Broker, g *group.Group, v Group) []Lag {
	byName := map[string]*Lag{}
	add := func(topic string, index int32) *Lag {
		name := fmt.Sprintf("%s-%d", topic, index)
		if l, ok := byName[name]; ok {
			return l
		}
		l := &Lag{Topic: topic, Index: index, Partition: name, Committed: -1, End: -1, Lag: -1, Leader: -1}
		byName[name] = l
		return l
	}
	g.CommittedOffsets(func(topic string, partition int32, offset int64) { add(topic, partition).Committed = offset })
	for _, o := range v.Assigned {
		if t, i, ok := splitPartition(o.Partition); ok {
			add(t, i).Member = o.Member
		}
	}
	out := make([]Lag, 0, len(byName))
	//purity:unordered sorted below
	for _, l := range byName {
		if t := b.Topic(l.Topic); t != nil && int(l.Index) < len(t.Partitions) {
			p := t.Partitions[l.Index]
			l.Leader = p.Leader
			if p.Log() != nil && p.Leader == b.NodeID() {
				l.End, l.Lag = p.HighWatermark, p.HighWatermark-max(l.Committed, 0)
			}
		}
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Lag) int { return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Index, b.Index)) })
	return out
}

// splitPartition reads "orders-2" as topic orders, partition 2.
func splitPartition(name string) (string, int32, bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return "", 0, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 32)
	return name[:i], int32(n), err == nil
}
