package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/record"
)

// epochCache is a partition's leader-epoch cache (KIP-101): for every
// leader epoch that wrote to the log, the offset of its first batch. It
// answers OffsetForLeaderEpoch, with which a follower finds where its log
// diverged from a new leader's. Gregor rebuilds it from the batches' own
// PartitionLeaderEpoch fields when a log opens, instead of keeping Kafka's
// leader-epoch-checkpoint file: the batches are the truth the file caches.
type epochCache struct {
	entries []epochEntry
}

type epochEntry struct {
	epoch int32
	start int64
}

// assign records that epoch starts at offset, if it is newer than the
// latest epoch known (Kafka's LeaderEpochFileCache.assign).
func (c *epochCache) assign(epoch int32, start int64) {
	if epoch < 0 {
		return
	}
	if n := len(c.entries); n > 0 {
		last := c.entries[n-1]
		if epoch <= last.epoch {
			return
		}
		if last.start >= start {
			// The previous epoch wrote nothing: the new one replaces it.
			c.entries = c.entries[:n-1]
		}
	}
	c.entries = append(c.entries, epochEntry{epoch, start})
}

// latest is the newest epoch, or -1.
func (c *epochCache) latest() int32 {
	if len(c.entries) == 0 {
		return -1
	}
	return c.entries[len(c.entries)-1].epoch
}

// truncate forgets epochs that start at or after the new log end.
func (c *epochCache) truncate(end int64) {
	for len(c.entries) > 0 && c.entries[len(c.entries)-1].start >= end {
		c.entries = c.entries[:len(c.entries)-1]
	}
}

// endFor answers OffsetForLeaderEpoch for epoch: the largest epoch <= it
// that this log has, and the offset where that epoch ends (the start of
// the next epoch, or the log end for the latest). Without any epoch at or
// below it, the answer is the epoch asked and the first epoch's start;
// with an empty cache, (-1, -1).
func (c *epochCache) endFor(epoch int32, leo int64) (int32, int64) {
	if len(c.entries) == 0 || epoch < 0 {
		return -1, -1
	}
	for i := len(c.entries) - 1; i >= 0; i-- {
		if c.entries[i].epoch <= epoch {
			if i == len(c.entries)-1 {
				return c.entries[i].epoch, leo
			}
			return c.entries[i].epoch, c.entries[i+1].start
		}
	}
	return epoch, c.entries[0].start
}

// endOf is where this log's copy of epoch ends: the start of the first
// later epoch, or leo.
func (c *epochCache) endOf(epoch int32, leo int64) int64 {
	for _, e := range c.entries {
		if e.epoch > epoch {
			return e.start
		}
	}
	return leo
}

// loadEpochs rebuilds the cache from the log's batches.
func (p *Partition) loadEpochs() error {
	p.epochs = epochCache{}
	return p.log.Scan(p.log.StartOffset(), func(b record.Batch) error {
		p.epochs.assign(b.PartitionLeaderEpoch(), b.BaseOffset())
		return nil
	})
}

// OffsetForLeaderEpoch v2-4 (KIP-101, KIP-279): where a leader epoch ends
// in the leader's log. v2 carries the current leader epoch, which fences a
// follower or client that missed a leader change; v3 the replica id.
func init() {
	register(23, api{
		min: 2, max: 4, serve: handleOffsetForLeaderEpoch,
		acl: offsetForLeaderEpochACL{},
	})
}

func handleOffsetForLeaderEpoch(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.OffsetForLeaderEpochRequest)
	resp := req.ResponseKind().(*kmsg.OffsetForLeaderEpochResponse)
	for _, rt := range req.Topics {
		t := b.topics[rt.Topic]
		st := kmsg.NewOffsetForLeaderEpochResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewOffsetForLeaderEpochResponseTopicPartition()
			sp.Partition, sp.LeaderEpoch, sp.EndOffset = rp.Partition, -1, -1
			p := t.partition(rp.Partition)
			switch {
			case p == nil || !b.leads(p):
				sp.ErrorCode = b.routeError(rt.Topic, rp.Partition)
			case p.offline:
				// Its log may have been cut back to its last sync
				// (cutToSynced): no follower truncates to it.
				sp.ErrorCode = kerr.KafkaStorageError.Code
			case rp.CurrentLeaderEpoch >= 0 && rp.CurrentLeaderEpoch < p.LeaderEpoch:
				sp.ErrorCode = kerr.FencedLeaderEpoch.Code
			case rp.CurrentLeaderEpoch > p.LeaderEpoch:
				sp.ErrorCode = kerr.UnknownLeaderEpoch.Code
			default:
				if b.cl == nil && len(p.epochs.entries) == 0 && p.log.EndOffset() > 0 {
					_ = p.loadEpochs()
				}
				sp.LeaderEpoch, sp.EndOffset = p.epochs.endFor(rp.LeaderEpoch, p.log.EndOffset())
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// offsetForLeaderEpochACL: CLUSTER_ACTION (a follower's, or a consumer
// with it, KIP-320) passes whole; else each topic needs DESCRIBE, a
// refused one answered alone.
type offsetForLeaderEpochACL struct{}

func (offsetForLeaderEpochACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	if b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationClusterAction}) {
		return nil, nil
	}
	q := r.Msg.(*kmsg.OffsetForLeaderEpochRequest)
	return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationDescribe), addTopics)
}
