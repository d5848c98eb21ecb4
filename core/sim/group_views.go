package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/group/assign"
	"github.com/gregor-kafka/gregor/core/record"
)

// generationRecord is what the members of one generation were handed,
// as they reported it: the simulator's memory of past assignments, so
// that a view can count the partitions a rebalance moved.
type generationRecord struct {
	leader  string
	members map[string][]assign.TopicPartition // member id → partitions
}

// ledger returns the record of a group's generation, creating it.
func (w *World) ledger(groupID string, gen int32, leader string) *generationRecord {
	if w.groupHistory == nil {
		w.groupHistory = map[string]map[int32]*generationRecord{}
	}
	if w.groupHistory[groupID] == nil {
		w.groupHistory[groupID] = map[int32]*generationRecord{}
	}
	r := w.groupHistory[groupID][gen]
	if r == nil {
		r = &generationRecord{leader: leader, members: map[string][]assign.TopicPartition{}}
		w.groupHistory[groupID][gen] = r
	}
	return r
}

// earlierGeneration is generation since of a group, or when since < 0
// the latest one before gen, with its record (nil if none was kept).
func (w *World) earlierGeneration(id string, gen, since int32) (int32, *generationRecord) {
	hist := w.groupHistory[id]
	if since < 0 {
		//purity:unordered takes the largest of unique generations
		for g := range hist {
			if g < gen && g > since {
				since = g
			}
		}
	}
	return since, hist[since]
}

// owners maps every partition of a generation to the member id that was
// handed it, counting only the members in only (all when nil).
func (r *generationRecord) owners(only map[string]bool) map[assign.TopicPartition]string {
	o := map[assign.TopicPartition]string{}
	for _, mid := range slices.Sorted(maps.Keys(r.members)) {
		if only != nil && !only[mid] {
			continue
		}
		for _, tp := range r.members[mid] {
			o[tp] = mid
		}
	}
	return o
}

// showGroup serves the views of consumer groups:
//
//	show group G [since=N]  the coordinator's view: state, generation,
//	                        protocol, members and their assignments, and
//	                        how many partitions changed owner since the
//	                        previous generation (or generation N)
//	show offsets-log G      the group's records in __consumer_offsets,
//	                        keys and values decoded
func (w *World) showGroup(c command, what string) (bool, error) {
	if what != "group" && what != "offsets-log" {
		return false, nil
	}
	id, err := c.arg(1, "group id")
	if err != nil {
		return true, err
	}
	n, err := w.coordinatorNode(c, group.Topic, func(n *Node) int32 { return n.Broker.Groups().PartitionFor(id) })
	if err != nil {
		return true, err
	}
	if what == "offsets-log" {
		return true, w.showOffsetsLog(n, id)
	}
	co := n.Broker.Groups()
	g := co.Group(id)
	if g == nil {
		w.notef(n.Name, "view", "group %s: unknown to the coordinator", id)
		return true, nil
	}
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{id}
	resp, _ := co.Handle(w.now, group.Call{}, req).(*kmsg.DescribeGroupsResponse)
	if resp == nil || len(resp.Groups) != 1 {
		return true, fmt.Errorf("show: DescribeGroups gave no answer")
	}
	dg := resp.Groups[0]
	rec := w.groupHistory[id][g.Generation()]
	head := fmt.Sprintf("group %s in %s-%d: %s, generation %d", id, group.Topic, g.Partition(), g.State(), g.Generation())
	if dg.Protocol != "" {
		head += ", protocol " + dg.Protocol
	}
	w.notef(n.Name, "view", "%s, %d members", head, len(dg.Members))
	for _, dm := range dg.Members {
		line := "  " + dm.MemberID
		if dm.InstanceID != nil {
			line += " (instance " + *dm.InstanceID + ")"
		}
		if g.State() == group.Stable {
			tps, err := assign.DecodeAssignment(dm.MemberAssignment)
			if err != nil {
				line += fmt.Sprintf(": <%v>", err)
			} else {
				line += fmt.Sprintf(": %s (%d)", tpList(tps), len(tps))
			}
		}
		if rec != nil && rec.leader == dm.MemberID {
			line += " leader"
		}
		w.notef(n.Name, "view", "%s", line)
	}
	since := int64(-1)
	if _, ok := c.kv["since"]; ok {
		if since, err = c.int("since", -1); err != nil {
			return true, err
		}
	}
	current := map[string]bool{}
	for _, dm := range dg.Members {
		current[dm.MemberID] = true
	}
	w.showMoves(n, id, g.Generation(), int32(since), current)
	return true, nil
}

// showMoves compares the owners of every partition in generation gen with
// those of an earlier generation (the one before, unless since >= 0).
// Only the current members count in generation gen: a static member that
// restarted reported under its old member id too.
func (w *World) showMoves(n *Node, id string, gen, since int32, current map[string]bool) {
	cur := w.groupHistory[id][gen]
	if cur == nil {
		return
	}
	since, prev := w.earlierGeneration(id, gen, since)
	if prev == nil {
		return
	}
	before, after := prev.owners(nil), cur.owners(current)
	var stayed, forced, moved, withheld, placed int
	//purity:unordered counts only
	for tp, was := range before {
		now, ok := after[tp]
		switch {
		case !ok:
			withheld++
		case now == was:
			stayed++
		case cur.members[was] == nil:
			forced++ // its owner left the group
		default:
			moved++
		}
	}
	//purity:unordered counts only
	for tp := range after {
		if _, ok := before[tp]; !ok {
			placed++
		}
	}
	parts := []string{fmt.Sprintf("%d kept their owner", stayed)}
	if forced > 0 {
		parts = append(parts, fmt.Sprintf("%d moved because their owner left", forced))
	}
	parts = append(parts, fmt.Sprintf("%d moved from one member to another", moved))
	if withheld > 0 {
		parts = append(parts, fmt.Sprintf("%d revoked and not yet reassigned", withheld))
	}
	if placed > 0 {
		parts = append(parts, fmt.Sprintf("%d newly placed", placed))
	}
	w.notef(n.Name, "view", "since generation %d: %s", since, strings.Join(parts, ", "))
}

// showOffsetsLog prints the records of group id in its __consumer_offsets
// partition: keys (group, topic, partition) and values (the offset), and
// the group metadata the coordinator writes at every generation.
func (w *World) showOffsetsLog(n *Node, id string) error {
	return w.scanInternal(n, group.Topic, id, func(off int64, _ record.Batch, r *record.Record) { // txnlog_view.go
		if r == nil {
			w.notef(n.Name, "view", "  offset %d: control batch (transaction marker)", off)
			return
		}
		e, err := group.DecodeEntry(r.Key, r.Value)
		switch {
		case err != nil:
			w.notef(n.Name, "view", "  offset %d: <%v>", off, err)
		case e.Group == id:
			w.describeEntry(n, off, e)
		}
	})
}

func (w *World) describeEntry(n *Node, off int64, e group.Entry) {
	switch {
	case e.IsOffset && e.OffsetValue == nil:
		w.notef(n.Name, "view", "  offset %d: OffsetCommitKey(%s, %s, %d) -> null (tombstone)", off, e.Group, e.Topic, e.Partition)
	case e.IsOffset:
		v := e.OffsetValue
		w.notef(n.Name, "view", "  offset %d: OffsetCommitKey(%s, %s, %d) -> OffsetCommitValue(offset=%d commit_timestamp=%d)", off, e.Group, e.Topic, e.Partition, v.Offset, v.CommitTimestamp)
	case e.GroupValue == nil:
		w.notef(n.Name, "view", "  offset %d: GroupMetadataKey(%s) -> null (tombstone)", off, e.Group)
	default:
		v := e.GroupValue
		proto, leader := "-", "-"
		if v.Protocol != nil && *v.Protocol != "" {
			proto = *v.Protocol
		}
		if v.Leader != nil && *v.Leader != "" {
			leader = *v.Leader
		}
		w.notef(n.Name, "view", "  offset %d: GroupMetadataKey(%s) -> GroupMetadataValue(generation=%d protocol=%s leader=%s members=%d)", off, e.Group, v.Generation, proto, leader, len(v.Members))
		members := slices.Clone(v.Members)
		slices.SortFunc(members, func(a, b kmsg.GroupMetadataValueMember) int { return strings.Compare(a.MemberID, b.MemberID) })
		for _, m := range members {
			tps, err := assign.DecodeAssignment(m.Assignment)
			as := tpList(tps)
			if err != nil {
				as = fmt.Sprintf("<%v>", err)
			}
			w.notef(n.Name, "view", "      %s session=%dms: %s", m.MemberID, m.SessionTimeoutMillis, as)
		}
	}
}
