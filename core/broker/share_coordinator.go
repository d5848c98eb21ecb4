package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// The share coordinator (KIP-932): the leader of the __share_group_state
// partition a share partition's coordinator key hashes to owns that share
// partition's persisted state, and serves it to the share partitions'
// leaders with InitializeShareGroupState v0 (83), ReadShareGroupState v0
// (84), WriteShareGroupState v0-1 (85), DeleteShareGroupState v0 (86) and
// ReadShareGroupStateSummary v0-1 (87), inter-broker APIs (CLUSTER_ACTION).
// Kafka's ShareCoordinatorShard, with one ShareSnapshot record per write
// (no ShareUpdate deltas): the log is compacted, so the last snapshot of a
// key is its state. A write is answered once the ISR has it.
//
// # Invariants
//
//   - The state of a key is held (b.shareState) only where its
//     __share_group_state partition is led: loaded from the log when the
//     broker becomes its leader, forgotten when it stops.
//   - A write or read carrying a leader epoch older than the one stored is
//     refused (FENCED_LEADER_EPOCH): a deposed share-partition leader
//     cannot overwrite its successor's state. A write carrying another
//     state epoch is refused (FENCED_STATE_EPOCH): the state was reset or
//     deleted by an admin since that leader read it.
//   - InitializeShareGroupState (an admin's reset) takes the next state
//     epoch when the request's is not newer: Gregor's group coordinator
//     does not track state epochs.
//   - Deleted state is kept as uninitialized (start offset -1) with the
//     next state epoch, not as a tombstone, so the fence survives.
func init() {
	register(83, 0, 0, handleShareState)
	register(84, 0, 0, handleShareState)
	register(85, 0, 1, handleShareState)
	register(86, 0, 0, handleShareState)
	register(87, 0, 1, handleShareState)
}

// loadShareState replays partition p of __share_group_state into the
// coordinator's state.
func (b *Broker) loadShareState(p int32) error {
	return b.ReplayInternal(share.StateTopic, p, func(_ int64, r record.Record) {
		k, sp, ok, err := share.DecodeSnapshot(r.Key, r.Value)
		switch {
		case err != nil:
			b.cfg.Logf("replaying %s-%d: %v", share.StateTopic, p, err)
		case ok && sp == nil:
			delete(b.shareState, k)
		case ok:
			b.shareState[k] = sp
		}
	})
}

// unloadShareState forgets the keys of partition p, whose leadership left.
func (b *Broker) unloadShareState(p int32) int {
	n := 0
	for k := range b.shareState {
		if b.shareStatePartitionOf(k) == p {
			delete(b.shareState, k)
			n++
		}
	}
	return n
}

// shareStatePartitionOf is the __share_group_state partition of a key,
// or -1 while the topic does not exist.
func (b *Broker) shareStatePartitionOf(k share.Key) int32 {
	n := 0
	if b.cl != nil {
		if it := b.cl.image.Topics[share.StateTopic]; it != nil {
			n = len(it.Partitions)
		}
	} else if t := b.topics[share.StateTopic]; t != nil {
		n = len(t.Partitions)
	}
	if n == 0 {
		return -1
	}
	return shareStatePartition(k, int32(n))
}

func handleShareState(b *Broker, r *Request) kmsg.Response {
	req := *r
	saved := b.wrote
	b.wrote = coordinatorWrites{}
	resp := b.serveShareState(r.Msg)
	b.answerAfterWrites(req, resp, b.cfg.Settings.Int64("offsets.commit.timeout.ms"))
	b.wrote = saved
	return nil
}

// shareStateOp is one share partition of a share coordinator request:
// what it asks, and the error code of its answer.
type shareStateOp func(k share.Key, cur *share.Partition) (code int16)

// serveShareState serves one request of APIs 83-87 on this broker's
// coordinator state; the appends it makes are in b.wrote.
func (b *Broker) serveShareState(msg kmsg.Request) kmsg.Response {
	resp := msg.ResponseKind()
	each := func(group string, topic [16]byte, part int32, op shareStateOp) int16 {
		k := share.Key{Group: group, TopicID: topic, Partition: part}
		sp := b.shareStatePartitionOf(k)
		if sp < 0 || !b.coordinates(share.StateTopic, sp) {
			return kerr.NotCoordinator.Code
		}
		return op(k, b.shareState[k])
	}
	switch q := msg.(type) {
	case *kmsg.ReadShareGroupStateRequest:
		rs := resp.(*kmsg.ReadShareGroupStateResponse)
		for _, t := range q.Topics {
			rt := kmsg.ReadShareGroupStateResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				rp := kmsg.NewReadShareGroupStateResponseTopicPartition()
				rp.Partition, rp.StartOffset = p.Partition, -1
				rp.ErrorCode = each(q.GroupID, t.TopicID, p.Partition, func(k share.Key, cur *share.Partition) int16 {
					if cur == nil {
						cur = share.NewPartition(-1)
					}
					if p.LeaderEpoch < cur.LeaderEpoch {
						return kerr.FencedLeaderEpoch.Code
					}
					rp.StateEpoch, rp.StartOffset = cur.StateEpoch, cur.Start
					for _, sb := range cur.Batches() {
						rp.StateBatches = append(rp.StateBatches, kmsg.ReadShareGroupStateResponseTopicPartitionStateBatch{
							FirstOffset: sb.First, LastOffset: sb.Last, DeliveryState: int8(sb.State), DeliveryCount: sb.Count})
					}
					if p.LeaderEpoch > cur.LeaderEpoch { // the new leader fences its predecessor
						cur.LeaderEpoch = p.LeaderEpoch
						return b.putShareState(k, cur)
					}
					return 0
				})
				rt.Partitions = append(rt.Partitions, rp)
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.WriteShareGroupStateRequest:
		rs := resp.(*kmsg.WriteShareGroupStateResponse)
		for _, t := range q.Topics {
			rt := kmsg.WriteShareGroupStateResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				rp := kmsg.NewWriteShareGroupStateResponseTopicPartition()
				rp.Partition = p.Partition
				rp.ErrorCode = each(q.GroupID, t.TopicID, p.Partition, func(k share.Key, cur *share.Partition) int16 {
					switch {
					case cur != nil && p.LeaderEpoch < cur.LeaderEpoch:
						return kerr.FencedLeaderEpoch.Code
					case cur != nil && p.StateEpoch != cur.StateEpoch || cur == nil && p.StateEpoch != 0:
						return kerr.FencedStateEpoch.Code
					}
					bs := make([]share.StateBatch, len(p.StateBatches))
					for i, sb := range p.StateBatches {
						bs[i] = share.StateBatch{First: sb.FirstOffset, Last: sb.LastOffset, State: share.State(sb.DeliveryState), Count: sb.DeliveryCount}
					}
					next, err := share.FromBatches(p.StartOffset, bs)
					if err != nil {
						return kerr.InvalidRequest.Code
					}
					next.StateEpoch, next.LeaderEpoch = p.StateEpoch, p.LeaderEpoch
					return b.putShareState(k, next)
				})
				rt.Partitions = append(rt.Partitions, rp)
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.InitializeShareGroupStateRequest:
		rs := resp.(*kmsg.InitializeShareGroupStateResponse)
		for _, t := range q.Topics {
			rt := kmsg.InitializeShareGroupStateResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				rp := kmsg.NewInitializeShareGroupStateResponseTopicPartition()
				rp.Partition = p.Partition
				rp.ErrorCode = each(q.GroupID, t.TopicID, p.Partition, func(k share.Key, cur *share.Partition) int16 {
					next := share.NewPartition(p.StartOffset)
					next.StateEpoch = p.StateEpoch
					if cur != nil { // the group coordinator keeps no state epochs: the next one
						next.StateEpoch, next.LeaderEpoch = max(p.StateEpoch, cur.StateEpoch+1), cur.LeaderEpoch
					}
					return b.putShareState(k, next)
				})
				rt.Partitions = append(rt.Partitions, rp)
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.DeleteShareGroupStateRequest:
		rs := resp.(*kmsg.DeleteShareGroupStateResponse)
		for _, t := range q.Topics {
			rt := kmsg.DeleteShareGroupStateResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				rp := kmsg.NewDeleteShareGroupStateResponseTopicPartition()
				rp.Partition = p.Partition
				rp.ErrorCode = each(q.GroupID, t.TopicID, p.Partition, func(k share.Key, cur *share.Partition) int16 {
					if cur == nil || cur.Start < 0 {
						return 0
					}
					next := share.NewPartition(-1)
					next.StateEpoch, next.LeaderEpoch = cur.StateEpoch+1, cur.LeaderEpoch
					return b.putShareState(k, next)
				})
				rt.Partitions = append(rt.Partitions, rp)
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.ReadShareGroupStateSummaryRequest:
		rs := resp.(*kmsg.ReadShareGroupStateSummaryResponse)
		for _, t := range q.Topics {
			rt := kmsg.ReadShareGroupStateSummaryResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				rp := kmsg.NewReadShareGroupStateSummaryResponseTopicPartition()
				rp.Partition, rp.StartOffset, rp.LeaderEpoch = p.Partition, -1, -1
				rp.ErrorCode = each(q.GroupID, t.TopicID, p.Partition, func(k share.Key, cur *share.Partition) int16 {
					if cur != nil {
						rp.StateEpoch, rp.LeaderEpoch, rp.StartOffset = cur.StateEpoch, cur.LeaderEpoch, cur.Start
						rp.DeliveryCompleteCount = 0
						for _, r := range cur.Records() {
							if r.State == share.Acknowledged || r.State == share.Archived {
								rp.DeliveryCompleteCount++
							}
						}
					}
					return 0
				})
				rt.Partitions = append(rt.Partitions, rp)
			}
			rs.Topics = append(rs.Topics, rt)
		}
	}
	return resp
}

// putShareState keeps a key's new state and appends its snapshot; the
// answer waits for the append (b.wrote).
func (b *Broker) putShareState(k share.Key, p *share.Partition) int16 {
	key, value := share.EncodeSnapshot(k, p, b.now)
	bt := record.NewBuilder(record.NewBatchHeader(b.now))
	bt.Add(key, value, 0)
	if _, err := b.AppendInternal(share.StateTopic, b.shareStatePartitionOf(k), bt.Build()); err != nil {
		b.cfg.Logf("share state of %s not written: %v", k.CoordinatorKey(), err)
		return kerr.CoordinatorNotAvailable.Code
	}
	b.shareState[k] = p
	return 0
}
