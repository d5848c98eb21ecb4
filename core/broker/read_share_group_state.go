//go:build !noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
)

// ReadShareGroupState v0 (84): a share partition's leader reads its
// state when it starts serving it, with its leader epoch, which fences
// the leaders before it (share_persist.go); share_state.go.
func init() {
	registerShareState(coordinator.ShareRead, 0, 0, serveReadShareState, askReadShareState, answerReadShareState)
}

func serveReadShareState(b *Broker, q *kmsg.ReadShareGroupStateRequest, rs *kmsg.ReadShareGroupStateResponse) {
	for _, t := range q.Topics {
		rt := kmsg.ReadShareGroupStateResponseTopic{TopicID: t.TopicID}
		for _, p := range t.Partitions {
			a := b.shares.Serve(coordinator.ShareOp{API: coordinator.ShareRead, Key: shareKey(q.GroupID, t.TopicID, p.Partition), LeaderEpoch: p.LeaderEpoch}, b.now)
			rp := kmsg.NewReadShareGroupStateResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.StartOffset = p.Partition, a.Code, -1
			if a.Code == 0 {
				rp.StateEpoch, rp.StartOffset = a.State.StateEpoch, a.State.Start
				for _, sb := range a.State.Batches() {
					rp.StateBatches = append(rp.StateBatches, kmsg.ReadShareGroupStateResponseTopicPartitionStateBatch{
						FirstOffset: sb.First, LastOffset: sb.Last, DeliveryState: int8(sb.State), DeliveryCount: sb.Count})
				}
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		rs.Topics = append(rs.Topics, rt)
	}
}

func askReadShareState(op coordinator.ShareOp) *kmsg.ReadShareGroupStateRequest {
	q := kmsg.NewPtrReadShareGroupStateRequest()
	q.GroupID = op.Key.Group
	q.Topics = []kmsg.ReadShareGroupStateRequestTopic{{TopicID: op.Key.TopicID, Partitions: []kmsg.ReadShareGroupStateRequestTopicPartition{
		{Partition: op.Key.Partition, LeaderEpoch: op.LeaderEpoch}}}}
	return q
}

// answerReadShareState reads the state; state batches that overlap or
// run backwards are INVALID_REQUEST.
func answerReadShareState(m *kmsg.ReadShareGroupStateResponse) (coordinator.ShareAnswer, bool) {
	if len(m.Topics) != 1 || len(m.Topics[0].Partitions) != 1 {
		return coordinator.ShareAnswer{}, false
	}
	p := m.Topics[0].Partitions[0]
	bs := make([]share.StateBatch, len(p.StateBatches))
	for i, sb := range p.StateBatches {
		bs[i] = share.StateBatch{First: sb.FirstOffset, Last: sb.LastOffset, State: share.State(sb.DeliveryState), Count: sb.DeliveryCount}
	}
	st, err := share.FromBatches(p.StartOffset, bs)
	a := coordinator.ShareAnswer{Code: p.ErrorCode}
	if err != nil && a.Code == 0 {
		a.Code = kerr.InvalidRequest.Code
	}
	if a.Code == 0 {
		st.StateEpoch = p.StateEpoch
		a.State = st
	}
	return a, true
}
