package cluster

import (
	"slices"
)

// Rack-aware replica placement (KIP-36), as Kafka's
// AdminUtils.assignReplicasToBrokersRackAware does it. When brokers have
// racks (broker.rack), they are taken in rack-alternating order: the
// first broker of each rack (racks and brokers in ascending order), then
// the second of each, and so on. Partition i's first replica is broker
// (start+i) mod n of that order; each further replica is the next broker,
// at a shift that grows every n partitions, that is on a rack without a
// replica of the partition yet (any rack once every rack has one). So each
// partition spreads over min(rf, racks) racks and leaders spread over the
// brokers. Without racks, placement is Place's.

// arrange returns the brokers in the order placement takes them, and
// their racks, or nil racks when no broker has one.
func (im *Image) arrange(brokers []int32) ([]int32, map[int32]string) {
	ids := slices.Clone(brokers)
	slices.Sort(ids)
	racks := map[int32]string{}
	byRack := map[string][]int32{}
	var names []string
	for _, id := range ids {
		r := ""
		if b := im.Brokers[id]; b != nil {
			r = b.Rack
		}
		racks[id] = r
		if byRack[r] == nil {
			names = append(names, r)
		}
		byRack[r] = append(byRack[r], id)
	}
	if len(names) == 1 && names[0] == "" {
		return ids, nil
	}
	slices.Sort(names)
	var out []int32
	for i := 0; len(out) < len(ids); i++ {
		for _, r := range names {
			if i < len(byRack[r]) {
				out = append(out, byRack[r][i])
			}
		}
	}
	return out, racks
}

// PlaceOn assigns replicas to brokers as Place does, rack-aware when they
// have racks. start indexes the brokers in placement order (PlaceStart).
func (im *Image) PlaceOn(brokers []int32, start, first, partitions, rf int) [][]int32 {
	order, racks := im.arrange(brokers)
	if racks == nil {
		return Place(brokers, start, first, partitions, rf)
	}
	n := len(order)
	distinct := map[string]bool{}
	//purity:unordered fills a set; only its size is used
	for _, r := range racks {
		distinct[r] = true
	}
	numRacks := len(distinct)
	out := make([][]int32, partitions)
	shift := start
	for i := range out {
		p := first + i
		if p > 0 && p%n == 0 {
			shift++
		}
		head := (p + start) % n
		reps := []int32{order[head]}
		used := map[string]bool{racks[order[head]]: true}
		for k := 0; len(reps) < rf; k++ {
			b := order[(head+1+(shift*numRacks+k)%(n-1))%n]
			if (!used[racks[b]] || len(used) == numRacks) && !slices.Contains(reps, b) {
				reps = append(reps, b)
				used[racks[b]] = true
			}
		}
		out[i] = reps
	}
	return out
}

// PlaceStart is PlacementStart in placement order: the index of a
// topic's partition 0 leader among brokers as PlaceOn takes them, so
// added partitions continue its placement; 0 if it is gone.
func (im *Image) PlaceStart(brokers []int32, partition0Leader int32) int {
	order, racks := im.arrange(brokers)
	if racks == nil {
		return PlacementStart(brokers, partition0Leader)
	}
	if i := slices.Index(order, partition0Leader); i >= 0 {
		return i
	}
	return 0
}
