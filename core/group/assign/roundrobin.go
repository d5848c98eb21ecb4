package assign

// roundRobinAssignor is Kafka's RoundRobinAssignor ("roundrobin"). Every
// subscribed partition, sorted by topic then partition, is dealt in turn
// around the circle of members (in member order); a member that does not
// subscribe to the partition's topic is skipped and the deal moves on. With
// identical subscriptions, counts differ by at most one.
type roundRobinAssignor struct{}

func (roundRobinAssignor) Name() string { return "roundrobin" }

func (roundRobinAssignor) Assign(members []Member, topics map[string]int32) Assignment {
	g := newGroup(members, topics)
	order := make([]int, len(g.parts))
	for p := range order {
		order[p] = p
	}
	return g.result(g.deal(order))
}

// deal hands out the partitions in the given order, one to each member in
// turn around a single circle shared by all topics, skipping members that do
// not subscribe to the partition's topic. It returns each member's
// partitions in the order dealt.
//
// Kafka sorts by topic and partition; the old ZooKeeper consumer sorted by
// hash code, which is the order in the worked example of seed 004 (tested
// in roundrobin_test.go).
func (g *group) deal(order []int) [][]int {
	owned := make([][]int, len(g.members))
	next := 0
	for _, p := range order {
		ti := g.partTopic[p]
		// Every listed topic has a subscriber, so this ends within one lap.
		for !g.subscribed(next, ti) {
			next = (next + 1) % len(g.members)
		}
		owned[next] = append(owned[next], p)
		next = (next + 1) % len(g.members)
	}
	return owned
}
