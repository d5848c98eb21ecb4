package sim

import (
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/group/assign"
	"github.com/gregor-kafka/gregor/core/view"
)

// groupViews reads every consumer group from the coordinator in charge of
// it.
func (w *World) groupViews() []view.Group {
	var out []view.Group
	w.eachHeld(group.Topic, func(b *broker.Broker) []string { return b.Groups().Groups() },
		func(b *broker.Broker, id string) int32 { return b.Groups().PartitionFor(id) },
		func(n *Node, id string) {
			if g := n.Broker.Groups().Group(id); g != nil {
				out = append(out, w.groupView(n.Name, n.Broker.Groups(), g))
			}
		})
	return out
}

// groupView describes one group as a client would (DescribeGroups, or
// ConsumerGroupDescribe for a KIP-848 group), asked at time 0 so that the
// coordinator's clock does not move: Handle only ever advances it. Moves
// are counted against the previous generation the members reported.
func (w *World) groupView(coordinator string, co *group.Coordinator, g *group.Group) view.Group {
	v := view.Group{ID: g.ID(), Coordinator: coordinator, Partition: g.Partition(), Type: string(group.Classic),
		State: string(g.State()), Generation: g.Generation()}
	owners := map[assign.TopicPartition]string{} // → member id
	color := map[string]int{}                    // member id → colour
	add := func(id, client string, instance *string) {
		m := view.Member{ID: id, Name: client, Color: len(v.Members)}
		if instance != nil {
			m.Instance = *instance
		}
		if rec := w.groupHistory[g.ID()][g.Generation()]; rec != nil && rec.leader == id {
			m.Leader = true
		}
		color[id] = m.Color
		v.Members = append(v.Members, m)
	}
	dreq := kmsg.NewPtrDescribeGroupsRequest()
	dreq.Groups = []string{g.ID()}
	dresp, _ := co.Handle(0, group.Call{}, dreq).(*kmsg.DescribeGroupsResponse)
	if dresp != nil && len(dresp.Groups) == 1 && (dresp.Groups[0].State != string(group.Dead) || g.State() == group.Dead) {
		dg := dresp.Groups[0]
		v.Protocol = dg.Protocol
		for _, dm := range dg.Members {
			add(dm.MemberID, dm.ClientID, dm.InstanceID)
			tps, _ := assign.DecodeAssignment(dm.MemberAssignment)
			for _, tp := range tps {
				owners[tp] = dm.MemberID
			}
		}
	} else {
		v.Type = string(group.Consumer)
		creq := kmsg.NewPtrConsumerGroupDescribeRequest()
		creq.Groups = []string{g.ID()}
		if cresp, _ := co.Handle(0, group.Call{}, creq).(*kmsg.ConsumerGroupDescribeResponse); cresp != nil && len(cresp.Groups) == 1 {
			dg := cresp.Groups[0]
			v.Protocol = dg.AssignorName
			for _, dm := range dg.Members {
				add(dm.MemberID, dm.ClientID, dm.InstanceID)
				for _, at := range dm.Assignment.TopicPartitions {
					for _, p := range at.Partitions {
						owners[assign.TopicPartition{Topic: at.Topic, Partition: p}] = dm.MemberID
					}
				}
			}
		}
	}
	_, prev := w.earlierGeneration(g.ID(), g.Generation(), -1)
	var before map[assign.TopicPartition]string
	if prev != nil {
		before = prev.owners(nil)
	}
	for _, tp := range assign.SortPartitions(slices.Collect(maps.Keys(owners))) {
		mid := owners[tp]
		o := view.Owned{Partition: fmt.Sprintf("%s-%d", tp.Topic, tp.Partition), Member: v.Members[color[mid]].Name, Color: color[mid]}
		if was, ok := before[tp]; prev != nil && (!ok || was != mid) {
			o.Moved, o.Was = true, clientOf(was)
			v.Moved++
		}
		v.Assigned = append(v.Assigned, o)
	}
	return v
}

// clientOf is the client id in a member id the coordinator handed out:
// Kafka appends "-" and a UUID (36 characters) to the client id.
func clientOf(memberID string) string {
	if n := len(memberID) - 37; n > 0 && memberID[n] == '-' {
		return memberID[:n]
	}
	return memberID
}
