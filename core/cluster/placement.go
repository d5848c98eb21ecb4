package cluster

import "slices"

// MaxPartitions bounds a topic's partition count. Kafka sets no such
// limit, but one request asking for billions of partitions must not be
// able to exhaust a broker or the controller (a record per partition);
// ten thousand is far above any real topic.
const MaxPartitions = 10000

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

// PlacementStart is the start that continues a topic's placement when
// partitions are added: the index, among the brokers in ascending order,
// of partition 0's first replica (or of the next broker, if it is gone),
// so partition i still goes to broker (start+i) mod n, as it would have if
// the topic had been created with that many partitions (Kafka's
// AdminZkClient.createPartitions does the same).
func PlacementStart(brokers []int32, partition0Leader int32) int {
	ids := slices.Clone(brokers)
	slices.Sort(ids)
	for i, id := range ids {
		if id >= partition0Leader {
			return i
		}
	}
	return 0
}
