package cluster

import "slices"

// Election is the outcome of electing a partition's leader.
type Election struct {
	Leader int32   // new leader, or NoLeader
	ISR    []int32 // the ISR to record
	// Unclean: the leader came from outside the ISR (possible data loss).
	Unclean bool
}

// Elect chooses a partition's leader and ISR given which brokers are live,
// as Kafka's PartitionChangeBuilder does (KIP-631):
//
//   - Brokers that are not live leave the ISR, but the ISR never becomes
//     empty: when its last live member goes it stays as it was, since
//     those replicas hold every committed record and the partition can
//     come back cleanly when one of them returns.
//   - The current leader stays if it is live and in that ISR.
//   - Otherwise the first replica, in replica order, that is in the ISR and
//     live leads (a clean election).
//   - Otherwise, if unclean election is allowed, the first live replica
//     leads and the ISR becomes just it: records only the old ISR had are
//     lost.
//   - Otherwise the partition is offline: NoLeader.
func Elect(p *Partition, live func(int32) bool, unclean bool) Election {
	isr := make([]int32, 0, len(p.ISR))
	for _, r := range p.ISR {
		if live(r) {
			isr = append(isr, r)
		}
	}
	if len(isr) == 0 {
		// Every ISR member is gone; they all hold every committed
		// record, so the ISR stays as it was (Kafka leaves it unset).
		isr = slices.Clone(p.ISR)
	}
	if p.Leader != NoLeader && live(p.Leader) && slices.Contains(isr, p.Leader) {
		return Election{Leader: p.Leader, ISR: isr}
	}
	for _, r := range p.Replicas {
		if live(r) && slices.Contains(isr, r) {
			return Election{Leader: r, ISR: isr}
		}
	}
	if unclean {
		for _, r := range p.Replicas {
			if live(r) {
				return Election{Leader: r, ISR: []int32{r}, Unclean: true}
			}
		}
	}
	return Election{Leader: NoLeader, ISR: isr}
}

// Change returns the PartitionChange that moves p to e, or nil when e
// changes nothing.
func (e Election) Change(topic string, partition int32, p *Partition) *PartitionChange {
	c := &PartitionChange{Topic: topic, Partition: partition, ExpectEpoch: p.PartitionEpoch, Leader: NoLeaderChange}
	changed := false
	if e.Leader != p.Leader {
		c.Leader, changed = e.Leader, true
	}
	if !slices.Equal(e.ISR, p.ISR) {
		c.ISR, changed = slices.Clone(e.ISR), true
	}
	if e.Unclean {
		c.Unclean, c.Recovery = true, RecoveryRecovering
	}
	if !changed {
		return nil
	}
	return c
}

// ElectPreferred returns the change that gives p back to its preferred
// replica (the first), as Kafka's preferred-leader election does, or nil
// when p is led by it already or it cannot lead: it must be live and in
// the ISR. The ISR stays as it is.
func ElectPreferred(topic string, partition int32, p *Partition, live func(int32) bool) *PartitionChange {
	pref := p.Replicas[0]
	if p.Leader == pref || !live(pref) || !slices.Contains(p.ISR, pref) {
		return nil
	}
	return &PartitionChange{Topic: topic, Partition: partition, ExpectEpoch: p.PartitionEpoch, Leader: pref, Preferred: true}
}
