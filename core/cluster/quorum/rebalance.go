package quorum

import (
	"github.com/gregor-kafka/gregor/core/cluster"
)

// Preferred-leader rebalancing (Kafka's auto.leader.rebalance.enable).
//
// Each partition's first replica is its preferred leader; placement
// spreads first replicas evenly, and so leadership. Failures move
// leadership to the survivors and nothing moves it back: after a few,
// one broker leads most partitions. Every leader.imbalance.check
// .interval.seconds the controller counts, per broker, the partitions it
// is preferred for but does not lead; where that is more than
// leader.imbalance.per.broker.percentage of the partitions it is
// preferred for, it elects it leader again of each of those it can lead
// (live and in the ISR), all in one batch. That is the rule of Kafka's
// ZooKeeper controller (checkAndTriggerAutoLeaderRebalance); KRaft's
// elects every preferred leader it can, which is this with a percentage
// of 0.

// rebalance returns the preferred-leader elections due now, and the keys
// they make busy.
func (c *controller) rebalance(live func(int32) bool) ([]cluster.Record, []string) {
	cfg := c.n.cfg
	if !cfg.AutoLeaderRebalance || c.n.now < c.nextRebalance {
		return nil, nil
	}
	c.nextRebalance = c.n.now + max(cfg.ImbalanceCheckTicks, 1)
	im := c.n.image
	type count struct{ preferred, elsewhere int }
	counts := map[int32]*count{}
	for _, name := range im.TopicNames() {
		for _, p := range im.Topics[name].Partitions {
			pref := p.Replicas[0]
			if counts[pref] == nil {
				counts[pref] = &count{}
			}
			counts[pref].preferred++
			if p.Leader != pref {
				counts[pref].elsewhere++
			}
		}
	}
	var recs []cluster.Record
	var keys []string
	for _, name := range im.TopicNames() {
		for i, p := range im.Topics[name].Partitions {
			n := counts[p.Replicas[0]]
			if n.elsewhere*100 <= cfg.ImbalancePerBrokerPercentage*n.preferred {
				continue
			}
			key := partitionKey(name, int32(i))
			if _, busy := c.inflight[key]; busy {
				continue
			}
			if ch := cluster.ElectPreferred(name, int32(i), p, live); ch != nil {
				recs = append(recs, cluster.Record{PartitionChange: ch})
				keys = append(keys, key)
			}
		}
	}
	return recs, keys
}
