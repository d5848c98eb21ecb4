//go:build !noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
)

// WriteShareGroupState v0-1 (85): a share partition's leader writes
// every change to its state before it answers the fetch or the
// acknowledgement that made it, fenced by the state and leader epochs
// (share_persist.go); share_state.go.
func init() {
	registerShareState(coordinator.ShareWrite, 0, 1, serveWriteShareState, askWriteShareState,
		func(m *kmsg.WriteShareGroupStateResponse) (coordinator.ShareAnswer, bool) {
			if len(m.Topics) != 1 || len(m.Topics[0].Partitions) != 1 {
				return coordinator.ShareAnswer{}, false
			}
			return coordinator.ShareAnswer{Code: m.Topics[0].Partitions[0].ErrorCode}, true
		})
}

// serveWriteShareState writes each share partition; state batches that
// overlap or run backwards are INVALID_REQUEST.
func serveWriteShareState(b *Broker, q *kmsg.WriteShareGroupStateRequest, rs *kmsg.WriteShareGroupStateResponse) {
	for _, t := range q.Topics {
		rt := kmsg.WriteShareGroupStateResponseTopic{TopicID: t.TopicID}
		for _, p := range t.Partitions {
			bs := make([]share.StateBatch, len(p.StateBatches))
			for i, sb := range p.StateBatches {
				bs[i] = share.StateBatch{First: sb.FirstOffset, Last: sb.LastOffset, State: share.State(sb.DeliveryState), Count: sb.DeliveryCount}
			}
			code := kerr.InvalidRequest.Code
			if st, err := share.FromBatches(p.StartOffset, bs); err == nil {
				st.StateEpoch, st.LeaderEpoch = p.StateEpoch, p.LeaderEpoch
				code = b.shares.Serve(coordinator.ShareOp{API: coordinator.ShareWrite, Key: shareKey(q.GroupID, t.TopicID, p.Partition), State: st}, b.now).Code
			}
			rt.Partitions = append(rt.Partitions, kmsg.WriteShareGroupStateResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
		}
		rs.Topics = append(rs.Topics, rt)
	}
}

func askWriteShareState(op coordinator.ShareOp) *kmsg.WriteShareGroupStateRequest {
	q := kmsg.NewPtrWriteShareGroupStateRequest()
	q.GroupID = op.Key.Group
	wp := kmsg.NewWriteShareGroupStateRequestTopicPartition()
	wp.Partition, wp.StateEpoch, wp.LeaderEpoch, wp.StartOffset = op.Key.Partition, op.State.StateEpoch, op.State.LeaderEpoch, op.State.Start
	for _, sb := range op.State.Batches() {
		wp.StateBatches = append(wp.StateBatches, kmsg.WriteShareGroupStateRequestTopicPartitionStateBatch{
			FirstOffset: sb.First, LastOffset: sb.Last, DeliveryState: int8(sb.State), DeliveryCount: sb.Count})
	}
	q.Topics = []kmsg.WriteShareGroupStateRequestTopic{{TopicID: op.Key.TopicID, Partitions: []kmsg.WriteShareGroupStateRequestTopicPartition{wp}}}
	return q
}
