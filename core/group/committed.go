package group

// CommittedOffsets calls fn with each offset the group has committed, in
// no particular order: for sums such as a group's consumer lag.
func (g *Group) CommittedOffsets(fn func(topic string, partition int32, offset int64)) {
	for tp, o := range g.offsets {
		fn(tp.topic, tp.partition, o.offset)
	}
}
