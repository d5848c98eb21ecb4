package cluster

import "slices"

// Place assigns replicas as seed 004 gives Kafka's default placement:
// partition i's first replica goes to broker (start+i) mod n and its j-th
// replica to (start+i+j) mod n, so leaders (the first replicas) spread over
// the brokers. brokers is taken in ascending id order; first is the index
// of the first partition being placed (non-zero when partitions are added
// to an existing topic). rf must be at most len(brokers).
func Place(brokers []int32, start, first, partitions, rf int) [][]int32 {
	ids := slices.Clone(brokers)
	slices.Sort(ids)
	n := len(ids)
	out := make([][]int32, partitions)
	for i := range out {
		out[i] = make([]int32, rf)
		for j := range rf {
			out[i][j] = ids[(start+first+i+j)%n]
		}
	}
	return out
}
