package assign

import "slices"

// cooperativeStickyAssignor is Kafka's CooperativeStickyAssignor
// ("cooperative-sticky", KIP-429). Its target is the sticky assignment, but
// it never hands a member a partition that another member still owns:
// such a partition is left out this round, its owner sees it missing from
// its own assignment and revokes it, and the follow-up rebalance that the
// revocation triggers hands it to its new owner.
type cooperativeStickyAssignor struct{}

func (cooperativeStickyAssignor) Name() string { return "cooperative-sticky" }

func (cooperativeStickyAssignor) Assign(members []Member, topics map[string]int32) Assignment {
	return CooperativeRound(members, Sticky.Assign(members, topics))
}

// CooperativeRound turns a target assignment into what to hand out this
// round under the incremental protocol (KIP-429): a member keeps every
// target partition it already claims in Owned and gains every target
// partition no member claims; a target partition that only other members
// claim is withheld until they have revoked it.
//
// Claims count whatever their generation, so even a stale claimant must
// revoke before a new member consumes the partition: a round never adds a
// second consumer to a partition, at worst it makes a rebalance one round
// longer. Any eager target works, not just sticky's.
func CooperativeRound(members []Member, target Assignment) Assignment {
	claimants := make(map[TopicPartition][]string)
	seen := make(map[string]bool, len(members))
	for _, m := range members {
		if seen[m.ID] {
			continue
		}
		seen[m.ID] = true
		for _, tp := range m.Owned {
			if c := claimants[tp]; !slices.Contains(c, m.ID) {
				claimants[tp] = append(c, m.ID)
			}
		}
	}
	round := make(Assignment, len(target))
	//purity:unordered fills a map, each entry from its own key
	for id, tps := range target {
		out := make([]TopicPartition, 0, len(tps))
		for _, tp := range tps {
			c := claimants[tp]
			if len(c) == 0 || slices.Contains(c, id) {
				out = append(out, tp)
			}
		}
		round[id] = SortPartitions(out)
	}
	return round
}

// Revoked returns, per member, the partitions it owns (Owned) that round
// does not give it: what it must give up, calling onPartitionsRevoked,
// before it may rejoin. Members with nothing to revoke have an empty entry.
func Revoked(members []Member, round Assignment) Assignment {
	out := make(Assignment, len(members))
	for _, m := range members {
		if _, done := out[m.ID]; done {
			continue
		}
		kept := make(map[TopicPartition]bool, len(round[m.ID]))
		for _, tp := range round[m.ID] {
			kept[tp] = true
		}
		lost := []TopicPartition{}
		for _, tp := range m.Owned {
			if !kept[tp] {
				kept[tp] = true // list each once
				lost = append(lost, tp)
			}
		}
		out[m.ID] = SortPartitions(lost)
	}
	return out
}
