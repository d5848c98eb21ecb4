package group

// CommittedOffsets calls fn with each offset the group has committed, in
// no particular order: for sums such as a group's consumer lag.
func (g *Group) CommittedOffsets(fn func(topic string, partition int32, offset int64)) {
	//purity:unordered unordered by contract; its one caller sums integer lags
	for tp, o := range g.offsets {
		fn(tp.topic, tp.partition, o.offset)
	}
}
