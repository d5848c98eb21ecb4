package assign

// rangeAssignor is Kafka's RangeAssignor ("range", the consumer default
// before 3.0). Each topic is split on its own: its partitions in order, its
// subscribers in member order, and every subscriber takes one contiguous
// run of n/m partitions, the first n%m subscribers one more.
//
// Because each topic is split on its own, the extras pile up on the same
// first members: two topics of 10 partitions over three consumers give the
// first one 8 and the others 6 each.
type rangeAssignor struct{}

func (rangeAssignor) Name() string { return "range" }

func (rangeAssignor) Assign(members []Member, topics map[string]int32) Assignment {
	g := newGroup(members, topics)
	owned := make([][]int, len(g.members))
	for ti := range g.topics {
		subs := g.subscribers[ti]
		n, m := int(g.counts[ti]), len(subs)
		per, extra := n/m, n%m
		for i, mi := range subs {
			start := i*per + min(i, extra)
			length := per
			if i < extra {
				length++
			}
			for p := start; p < start+length; p++ {
				owned[mi] = append(owned[mi], g.base[ti]+p)
			}
		}
	}
	return g.result(owned)
}
