package view

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/group/assign"
	"github.com/gregor-kafka/gregor/core/txn"
)

// GroupMemory is what the caller remembers of a group beyond what its
// coordinator answers: the classic leader of the current generation
// (DescribeGroups does not name it), and, when Earlier, who owned each
// partition in the previous generation, so that the moves can be counted.
type GroupMemory struct {
	Leader  string
	Earlier bool
	Owners  map[assign.TopicPartition]string // partition → member id
}

// GroupOf describes one group as a client would (DescribeGroups, or
// ConsumerGroupDescribe for a KIP-848 group), asked at time 0 so that the
// coordinator's clock does not move: Handle only ever advances it. Moves
// are counted against mem's previous generation. The simulator and the
// native server describe groups with it alike.
func GroupOf(coordinator string, co *group.Coordinator, g *group.Group, mem GroupMemory) Group {
	v := Group{ID: g.ID(), Coordinator: coordinator, Partition: g.Partition(), Type: string(group.Classic),
		State: string(g.State()), Generation: g.Generation()}
	owners := map[assign.TopicPartition]string{} // → member id
	color := map[string]int{}                    // member id → colour
	add := func(id, client string, instance *string) {
		m := Member{ID: id, Name: client, Color: len(v.Members), Leader: id != "" && id == mem.Leader}
		if instance != nil {
			m.Instance = *instance
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
	for _, tp := range assign.SortPartitions(slices.Collect(maps.Keys(owners))) {
		mid := owners[tp]
		o := Owned{Partition: fmt.Sprintf("%s-%d", tp.Topic, tp.Partition), Member: v.Members[color[mid]].Name, Color: color[mid]}
		if was, ok := mem.Owners[tp]; mem.Earlier && (!ok || was != mid) {
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

// TxnOf describes one transactional id as its coordinator holds it
// (Kafka's TransactionMetadata, what DescribeTransactions answers), or
// false when the coordinator holds no such id.
func TxnOf(coordinator string, co *txn.Coordinator, id string) (Txn, bool) {
	m, ok := co.Get(id)
	if !ok {
		return Txn{}, false
	}
	t := Txn{ID: id, Coordinator: coordinator, Partition: co.PartitionFor(id), State: m.State.Name(),
		ProducerID: m.ProducerID, Epoch: m.ProducerEpoch, TimeoutMs: m.TimeoutMs, TV2: m.ClientTV >= 2}
	for _, tp := range m.Partitions {
		t.Partitions = append(t.Partitions, tp.String())
	}
	return t, true
}

// Coordinated is every consumer group and transactional id that b's
// coordinators hold, in id order, as GroupOf and TxnOf describe them,
// each group's leader as its coordinator knows it. A coordinator holds
// the ids of the internal topics' partitions its broker leads (it
// unloads a partition it loses), so in a cluster each broker shows its
// own share. It reads memory only, and moves no clock.
func Coordinated(b *broker.Broker, name string) ([]Group, []Txn) {
	gs, _ := GroupsAfter(b, name, "", math.MaxInt, nil)
	ts, _ := TxnsAfter(b, name, "", math.MaxInt, nil)
	return gs, ts
}

// GroupsAfter is the page of at most n groups of Coordinated whose ids
// follow after ("" for the first page) and that keep lets through (nil
// keeps every one; the console keeps those its principal may describe),
// and the after of the next page ("" when none follows): the ids are
// sorted, but only the page's groups are described, so its cost is
// bounded by n, never by the groups beyond it.
func GroupsAfter(b *broker.Broker, name, after string, n int, keep func(id string) bool) ([]Group, string) {
	var gs []Group
	co := b.Groups()
	ids, next := idPage(co.Groups(), after, n, keep)
	for _, id := range ids {
		if g := co.Group(id); g != nil {
			gs = append(gs, GroupOf(name, co, g, GroupMemory{Leader: g.Leader()}))
		}
	}
	return gs, next
}

// TxnsAfter is GroupsAfter for the transactional ids of Coordinated.
func TxnsAfter(b *broker.Broker, name, after string, n int, keep func(id string) bool) ([]Txn, string) {
	var ts []Txn
	tc := b.Transactions()
	ids, next := idPage(tc.IDs(), after, n, keep)
	for _, id := range ids {
		if t, ok := TxnOf(name, tc, id); ok {
			ts = append(ts, t)
		}
	}
	return ts, next
}

// idPage is at most n of ids, sorted, that follow after and that keep
// lets through (nil keeps every one), and the after of the next page:
// the last id of this one, "" when none follows. keep is asked of the
// ids in order, and of none past the first one after the page.
func idPage(ids []string, after string, n int, keep func(id string) bool) ([]string, string) {
	ids = slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id <= after })
	slices.Sort(ids)
	page := []string{}
	for _, id := range ids {
		if keep != nil && !keep(id) {
			continue
		}
		if len(page) == n {
			return page, page[n-1]
		}
		page = append(page, id)
	}
	return page, ""
}
