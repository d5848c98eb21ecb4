package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetching from the closest replica (KIP-392). With replica.selector.class
// set to Kafka's RackAwareReplicaSelector, a leader asked by a consumer
// whose client.rack (Fetch v11+ rack_id) is not the leader's own rack
// answers, without records, with the id of a replica in that rack that
// is in the ISR and holds the fetch offset (the most caught up, then the
// lowest id): PreferredReadReplica. The consumer then fetches from that
// follower, which serves consumers up to its own high watermark (at most
// the leader's), checking the leader epoch as a leader does. Followers
// serve consumer fetches from v11 on whatever the selector, as Kafka's do;
// older clients, which cannot have been sent there, still get
// NOT_LEADER_OR_FOLLOWER.

// RackAwareReplicaSelector is the replica.selector.class value that turns
// follower fetching on.
const RackAwareReplicaSelector = "org.apache.kafka.common.replica.RackAwareReplicaSelector"

// followerServes reports whether this broker, following p, serves a
// consumer's fetch of it.
func (b *Broker) followerServes(p *Partition, req *kmsg.FetchRequest) bool {
	return p.follow != nil && fetchReplica(req) < 0 && req.Version >= 11
}

// preferredReadReplica is the replica a consumer's fetch of p should go
// to instead of this leader, or -1: a leader with followers, in a
// cluster, may send it to one (p.lead is set only there).
func (b *Broker) preferredReadReplica(p *Partition, req *kmsg.FetchRequest, offset int64) int32 {
	if p.lead == nil || req.Rack == "" || fetchReplica(req) >= 0 || req.Version < 11 {
		return -1
	}
	if sel, _ := b.cfg.Settings.Value("replica.selector.class"); sel != RackAwareReplicaSelector {
		return -1
	}
	if b.ownRack() == req.Rack {
		return -1 // the leader is in the consumer's rack
	}
	im := b.cl.image
	best, bestLEO := int32(-1), int64(-1)
	for _, r := range p.ISR {
		f := p.lead.followers[r]
		br := im.Brokers[r]
		if f == nil || br == nil || br.Rack != req.Rack || !im.Live(r) || f.leo < offset || f.leo <= bestLEO {
			continue
		}
		best, bestLEO = r, f.leo
	}
	return best
}

// redirect answers a consumer's fetch of p with the replica to read from
// instead, without records, and reports whether it did.
func (b *Broker) redirect(p *Partition, req *kmsg.FetchRequest, rp *kmsg.FetchRequestTopicPartition, sp *kmsg.FetchResponseTopicPartition) bool {
	id := b.preferredReadReplica(p, req, rp.FetchOffset)
	if id < 0 {
		return false
	}
	sp.PreferredReadReplica = id
	sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = p.HighWatermark, p.lastStableOffset(), p.log.StartOffset()
	return true
}
