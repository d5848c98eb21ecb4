package broker

import (
	"slices"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// AlterPartitionReassignments v0-1 and ListPartitionReassignments v0
// (KIP-455). In a cluster the controller decides (KIP-590 forwarding) and
// the brokers carry the move out as the image tells them: a new replica
// is a follower like any other until the leader adds it to the ISR, and a
// replica the image no longer lists stops and deletes its log
// (retireReplicas). A single broker decides with the same rules on its
// own partitions, where it is the only broker: moving a partition to it
// changes nothing, any other broker is not registered
// (INVALID_REPLICA_ASSIGNMENT), and no reassignment is ever in progress.

// soloImage is a single broker's partitions as a cluster image: it is
// the only replica and leads them all.
func (b *Broker) soloImage() *cluster.Image {
	self := b.cfg.NodeID
	im := cluster.NewImage()
	im.Brokers[self] = &cluster.Broker{ID: self}
	//purity:unordered fills a map keyed by topic name
	for name, t := range b.topics {
		ct := &cluster.Topic{Name: name}
		for range t.Partitions {
			ct.Partitions = append(ct.Partitions, &cluster.Partition{Replicas: []int32{self}, ISR: []int32{self}, Leader: self})
		}
		im.Topics[name] = ct
	}
	return im
}

// syncFollowers keeps the leader's follower states equal to the replicas:
// a replica a reassignment adds gets a fresh lease, as every follower
// does when leadership changes, and one it removes is forgotten.
func (b *Broker) syncFollowers(p *Partition) {
	l := p.lead
	for _, r := range p.Replicas {
		if r != b.cfg.NodeID && l.followers[r] == nil {
			l.followers[r] = &follower{leo: -1, lastCaughtUp: b.now}
		}
	}
	//purity:unordered deletes only; order cannot matter
	for r := range l.followers {
		if !slices.Contains(p.Replicas, r) {
			delete(l.followers, r)
		}
	}
}

// retireReplicas deletes the logs of t's partitions that this broker held
// and the image no longer places on it (a completed reassignment, KIP-455,
// perhaps while this broker was down). The slot stays, with an empty log,
// as for the partitions of t the broker never replicated.
func (b *Broker) retireReplicas(t *Topic, it *cluster.Topic, now int64) error {
	if t == nil {
		return nil
	}
	for i, p := range t.Partitions {
		if i >= len(it.Partitions) || slices.Contains(it.Partitions[i].Replicas, b.cfg.NodeID) {
			continue
		}
		if p.lead == nil && p.follow == nil && p.log.EndOffset() == 0 {
			continue
		}
		b.loseLeadership(p)
		p.follow, p.deleted = nil, true
		if err := p.log.Delete(); err != nil {
			return err
		}
		b.cfg.Logf("%s: no longer a replica: deleted its log", p)
		fresh, err := b.loadReplica(t, int32(i), now)
		if err != nil {
			return err
		}
		t.Partitions[i] = fresh
	}
	return nil
}
