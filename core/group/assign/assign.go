package assign

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// TopicPartition names one partition of one topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string {
	return tp.Topic + "-" + strconv.Itoa(int(tp.Partition))
}

// compareTP orders by topic name, then partition number.
func compareTP(a, b TopicPartition) int {
	if c := strings.Compare(a.Topic, b.Topic); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// SortPartitions sorts tps by topic, then partition, in place, and returns it.
func SortPartitions(tps []TopicPartition) []TopicPartition {
	slices.SortFunc(tps, compareTP)
	return tps
}

// Member is one consumer of a group as the assignor sees it: the
// ConsumerProtocolSubscription it sent with JoinGroup (or, under KIP-848,
// what its ConsumerGroupHeartbeat said).
type Member struct {
	// ID is the member id the coordinator gave it. IDs are unique within a
	// group; if one repeats, the assignors use the first and ignore the rest.
	ID string
	// InstanceID is group.instance.id (KIP-345), empty for dynamic members.
	// Static members sort before dynamic ones, by instance id, exactly as
	// Kafka's AbstractPartitionAssignor.MemberInfo does.
	InstanceID string
	// Topics is the subscription. Topics missing from the metadata, or with
	// no partitions, are skipped.
	Topics []string
	// Owned is what the member held before this rebalance: the
	// subscription's OwnedPartitions (KIP-429), or the sticky user data
	// (KIP-54) for the eager "sticky" protocol.
	Owned []TopicPartition
	// Generation is the group generation in which Owned was assigned
	// (KIP-341); -1 when unknown. Where two members claim one partition the
	// higher generation wins.
	Generation int32
}

// Assignment maps each member id to its partitions, sorted by topic and
// partition. Every member given to an assignor has an entry, possibly empty,
// so that a leader sends every member an assignment.
type Assignment map[string][]TopicPartition

// Members returns the member ids, sorted.
func (a Assignment) Members() []string {
	ids := make([]string, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Owners maps every assigned partition to its member. If a partition were
// assigned twice (no assignor here does that) the later member in id order
// wins.
func (a Assignment) Owners() map[TopicPartition]string {
	owners := make(map[TopicPartition]string)
	for _, id := range a.Members() {
		for _, tp := range a[id] {
			owners[tp] = id
		}
	}
	return owners
}

// Count returns how many partitions the member has.
func (a Assignment) Count(member string) int { return len(a[member]) }

// String renders the assignment in one fixed form, a line per member in
// member-id order:
//
//	C1-0: T1[0 1 2 3] T2[0 1 2 3]
//	C2-0: T1[4 5 6] T2[4 5 6]
//	C3-0: -
func (a Assignment) String() string {
	var b strings.Builder
	for i, id := range a.Members() {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(id)
		b.WriteByte(':')
		writeTopics(&b, SortPartitions(slices.Clone(a[id])))
	}
	return b.String()
}

func writeTopics(b *strings.Builder, tps []TopicPartition) {
	if len(tps) == 0 {
		b.WriteString(" -")
		return
	}
	for i, tp := range tps {
		if i == 0 || tp.Topic != tps[i-1].Topic {
			if i > 0 {
				b.WriteByte(']')
			}
			b.WriteByte(' ')
			b.WriteString(tp.Topic)
			b.WriteByte('[')
		} else {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(tp.Partition)))
	}
	b.WriteByte(']')
}

// Assignor is one partition assignment strategy, named as in the consumer
// protocol (the JoinGroup protocol name, partition.assignment.strategy).
type Assignor interface {
	// Name is the protocol name: "range", "roundrobin", "sticky" or
	// "cooperative-sticky".
	Name() string
	// Assign divides the partitions of topics (topic → partition count)
	// among members. It is a pure function: same input, same output. For
	// the cooperative assignor the result is what to hand out this round,
	// which may withhold partitions that must first be revoked.
	Assign(members []Member, topics map[string]int32) Assignment
}

// The assignors, by protocol name.
var (
	Range             Assignor = rangeAssignor{}
	RoundRobin        Assignor = roundRobinAssignor{}
	Sticky            Assignor = stickyAssignor{}
	CooperativeSticky Assignor = cooperativeStickyAssignor{}
)

// Names lists the protocol names ByName knows, in Kafka's documentation
// order.
func Names() []string {
	return []string{"range", "roundrobin", "sticky", "cooperative-sticky"}
}

// ByName returns the assignor for a consumer protocol name.
func ByName(name string) (Assignor, bool) {
	switch name {
	case "range":
		return Range, true
	case "roundrobin":
		return RoundRobin, true
	case "sticky":
		return Sticky, true
	case "cooperative-sticky":
		return CooperativeSticky, true
	}
	return nil, false
}

// IsCooperative reports whether the named protocol uses the incremental
// (COOPERATIVE, KIP-429) rebalance protocol rather than the eager one, in
// which every member revokes everything before it rejoins.
func IsCooperative(name string) bool { return name == "cooperative-sticky" }

// group is the input made canonical: members deduplicated and sorted,
// subscriptions restricted to known topics, and every subscribed partition
// numbered 0..n-1 in topic-then-partition order.
type group struct {
	members []*Member
	subs    [][]string // per member: sorted, deduplicated, existing topics

	topics      []string         // subscribed topics that exist, sorted
	topicIndex  map[string]int   // topic → index in topics
	base        []int            // topic index → number of its partition 0
	counts      []int32          // topic index → partition count
	subscribers [][]int          // topic index → member indexes, in member order
	parts       []TopicPartition // every partition, sorted
	partTopic   []int            // partition index → topic index
}

// compareMembers is Kafka's MemberInfo order: static members first, by
// group.instance.id, then dynamic members by member id.
func compareMembers(a, b *Member) int {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		if c := strings.Compare(a.InstanceID, b.InstanceID); c != 0 {
			return c
		}
	case a.InstanceID != "":
		return -1
	case b.InstanceID != "":
		return 1
	}
	return strings.Compare(a.ID, b.ID)
}

func newGroup(members []Member, topics map[string]int32) *group {
	g := &group{topicIndex: make(map[string]int)}
	seen := make(map[string]bool, len(members))
	for i := range members {
		if seen[members[i].ID] {
			continue
		}
		seen[members[i].ID] = true
		g.members = append(g.members, &members[i])
	}
	slices.SortStableFunc(g.members, compareMembers)

	g.subs = make([][]string, len(g.members))
	var all []string
	for i, m := range g.members {
		var s []string
		for _, t := range m.Topics {
			if topics[t] > 0 {
				s = append(s, t)
			}
		}
		slices.Sort(s)
		g.subs[i] = slices.Compact(s)
		all = append(all, g.subs[i]...)
	}
	slices.Sort(all)
	g.topics = slices.Compact(all)

	g.base = make([]int, len(g.topics))
	g.counts = make([]int32, len(g.topics))
	g.subscribers = make([][]int, len(g.topics))
	for ti, t := range g.topics {
		g.topicIndex[t] = ti
		g.base[ti] = len(g.parts)
		g.counts[ti] = topics[t]
		for p := int32(0); p < topics[t]; p++ {
			g.parts = append(g.parts, TopicPartition{t, p})
			g.partTopic = append(g.partTopic, ti)
		}
	}
	for mi, s := range g.subs {
		for _, t := range s {
			ti := g.topicIndex[t]
			g.subscribers[ti] = append(g.subscribers[ti], mi)
		}
	}
	return g
}

// index returns the partition number of tp, or -1 if tp is not a partition
// of a subscribed topic.
func (g *group) index(tp TopicPartition) int {
	ti, ok := g.topicIndex[tp.Topic]
	if !ok || tp.Partition < 0 || tp.Partition >= g.counts[ti] {
		return -1
	}
	return g.base[ti] + int(tp.Partition)
}

// subscribed reports whether member mi subscribes to topic index ti.
func (g *group) subscribed(mi, ti int) bool {
	_, ok := slices.BinarySearch(g.subscribers[ti], mi)
	return ok
}

// result turns per-member partition indexes into an Assignment.
func (g *group) result(owned [][]int) Assignment {
	a := make(Assignment, len(g.members))
	for mi, m := range g.members {
		tps := make([]TopicPartition, 0, len(owned[mi]))
		for _, p := range owned[mi] {
			tps = append(tps, g.parts[p])
		}
		a[m.ID] = SortPartitions(tps)
	}
	return a
}

// resultFromOwners is result for an owner-per-partition array (-1 = none).
func (g *group) resultFromOwners(owner []int) Assignment {
	owned := make([][]int, len(g.members))
	for p, mi := range owner {
		if mi >= 0 {
			owned[mi] = append(owned[mi], p)
		}
	}
	return g.result(owned)
}
