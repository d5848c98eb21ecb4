package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/describe"
	"github.com/gregor-kafka/gregor/core/share"
)

// The share-partition leader's side of the share coordinator (Kafka's
// DefaultStatePersister and SharePartition.initialize, KIP-932): the
// engine's share partitions are a cache of what the coordinator keeps.
//
//   - A share partition is read from its coordinator (ReadShareGroupState,
//     with the topic partition's leader epoch) the first time this broker
//     serves it as leader; until the answer comes it has no records to
//     give. Uninitialized state (start offset -1) starts where
//     share.auto.offset.reset says.
//   - Every change (acquisitions, acknowledgements, released locks) is
//     written (WriteShareGroupState) before the answer that reports it is
//     sent, so an acknowledged record is never delivered again after its
//     leader or its coordinator moves, and a delivery count never goes
//     back. A write that fails drops the cached share partition (it is
//     read again) and fails what it carried: an acknowledgement gets the
//     write's error, acquired records are not sent.
//   - On a single broker, or when this broker is also the coordinator,
//     the same requests are served in-process.

// shareCoordinate hands one share coordinator request for key k to its
// coordinator; done gets the answer, or nil when there is none to ask or
// it did not answer in time.
func (b *Broker) shareCoordinate(k share.Key, req kmsg.Request, done func(kmsg.Response)) {
	sp := b.shareStatePartitionOf(k)
	if sp < 0 {
		if _, err := b.internalTopic(share.StateTopic); err != nil {
			done(nil)
			return
		}
		sp = b.shareStatePartitionOf(k)
	}
	id, _, _, ok := b.internalLeader(share.StateTopic, sp)
	switch {
	case !ok:
		done(nil)
	case b.cl == nil || id == b.cfg.NodeID:
		saved := b.wrote
		b.wrote = coordinatorWrites{}
		resp := b.serveShareState(req)
		b.afterWrites(nil, resp, b.cfg.Settings.Int64("offsets.commit.timeout.ms"), func() { done(resp) })
		b.wrote = saved
	default:
		b.send(id, req, done)
	}
}

// shareLoad reports whether share partition k of partition p is in the
// engine, and asks its coordinator for it if not.
func (b *Broker) shareLoad(k share.Key, p *Partition) bool {
	if b.share.Partition(k) != nil {
		return true
	}
	if b.shareReads[k] {
		return false
	}
	b.shareReads[k] = true
	req := kmsg.NewPtrReadShareGroupStateRequest()
	req.GroupID = k.Group
	rp := kmsg.NewReadShareGroupStateRequestTopicPartition()
	rp.Partition, rp.LeaderEpoch = k.Partition, p.LeaderEpoch
	req.Topics = []kmsg.ReadShareGroupStateRequestTopic{{TopicID: k.TopicID, Partitions: []kmsg.ReadShareGroupStateRequestTopicPartition{rp}}}
	inline := true
	b.shareCoordinate(k, req, func(r kmsg.Response) {
		delete(b.shareReads, k)
		resp, _ := r.(*kmsg.ReadShareGroupStateResponse)
		code := kerr.RequestTimedOut.Code
		if resp != nil && len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
			code = resp.Topics[0].Partitions[0].ErrorCode
		}
		part, pcode := b.sharePartition(share.TP{TopicID: k.TopicID, Partition: k.Partition})
		switch {
		case code != 0:
			b.cfg.Logf("share group %s: reading the state of %s-%d: %s", k.Group, p.Topic.Name, k.Partition, describe.ErrorName(code))
			return
		case pcode != 0 || b.share.Partition(k) != nil:
			return // no longer led here, or loaded meanwhile
		}
		st := resp.Topics[0].Partitions[0]
		bs := make([]share.StateBatch, len(st.StateBatches))
		for i, sb := range st.StateBatches {
			bs[i] = share.StateBatch{First: sb.FirstOffset, Last: sb.LastOffset, State: share.State(sb.DeliveryState), Count: sb.DeliveryCount}
		}
		start := st.StartOffset
		if start < 0 {
			start = b.shareResetOffset(part)
			bs = nil
		}
		sp, err := share.FromBatches(start, bs)
		if err != nil {
			b.cfg.Logf("share group %s: the state of %s-%d: %v", k.Group, p.Topic.Name, k.Partition, err)
			return
		}
		sp.StateEpoch, sp.LeaderEpoch = st.StateEpoch, part.LeaderEpoch
		b.share.Restore(k, sp)
		if st.StartOffset < 0 {
			b.share.Touch(k) // initialized here: written with its start
		}
		if !inline {
			b.wakeShareFetches()
		}
	})
	inline = false
	return b.share.Partition(k) != nil
}

// shareResetOffset is where a share partition the group never read
// starts (share.auto.offset.reset).
func (b *Broker) shareResetOffset(p *Partition) int64 {
	if v, _ := b.cfg.Settings.Value("share.auto.offset.reset"); v == "earliest" {
		return p.log.StartOffset()
	}
	return p.HighWatermark
}

// persistShare writes every share partition changed since the last call
// through its coordinator, and calls done, if set, once every write is
// answered, with the error codes of those that failed. It reports
// whether any share partition changed.
func (b *Broker) persistShare(done func(failed map[share.Key]int16)) bool {
	keys := b.share.TakeDirty()
	failed := map[share.Key]int16{}
	open := 1
	finish := func() {
		if open--; open == 0 && done != nil {
			done(failed)
		}
	}
	for _, k := range keys {
		p := b.share.Partition(k)
		if p == nil {
			continue
		}
		req := kmsg.NewPtrWriteShareGroupStateRequest()
		req.GroupID = k.Group
		wp := kmsg.NewWriteShareGroupStateRequestTopicPartition()
		wp.Partition, wp.StateEpoch, wp.LeaderEpoch, wp.StartOffset = k.Partition, p.StateEpoch, p.LeaderEpoch, p.Start
		for _, sb := range p.Batches() {
			wp.StateBatches = append(wp.StateBatches, kmsg.WriteShareGroupStateRequestTopicPartitionStateBatch{
				FirstOffset: sb.First, LastOffset: sb.Last, DeliveryState: int8(sb.State), DeliveryCount: sb.Count})
		}
		req.Topics = []kmsg.WriteShareGroupStateRequestTopic{{TopicID: k.TopicID, Partitions: []kmsg.WriteShareGroupStateRequestTopicPartition{wp}}}
		open++
		b.shareCoordinate(k, req, func(r kmsg.Response) {
			code := kerr.RequestTimedOut.Code
			if resp, _ := r.(*kmsg.WriteShareGroupStateResponse); resp != nil && len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
				code = resp.Topics[0].Partitions[0].ErrorCode
			}
			if code != 0 {
				failed[k] = code
				if b.share.Partition(k) == p {
					b.share.Restore(k, nil)
				}
				b.cfg.Logf("share group %s: writing the state of partition %d: %s; it is read again", k.Group, k.Partition, describe.ErrorName(code))
			}
			finish()
		})
	}
	finish()
	return len(keys) > 0
}
