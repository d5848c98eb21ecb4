//go:build !noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
)

// InitializeShareGroupState v0 (83): an admin's reset of share
// partitions to a start offset, with the next state epoch
// (AlterShareGroupOffsets, share_offsets.go); share_state.go.
func init() {
	registerShareState(coordinator.ShareInit, 0, 0, serveInitializeShareState, askInitializeShareState,
		func(m *kmsg.InitializeShareGroupStateResponse) (coordinator.ShareAnswer, bool) {
			if len(m.Topics) != 1 || len(m.Topics[0].Partitions) != 1 {
				return coordinator.ShareAnswer{}, false
			}
			return coordinator.ShareAnswer{Code: m.Topics[0].Partitions[0].ErrorCode}, true
		})
}

func serveInitializeShareState(b *Broker, q *kmsg.InitializeShareGroupStateRequest, rs *kmsg.InitializeShareGroupStateResponse) {
	for _, t := range q.Topics {
		rt := kmsg.InitializeShareGroupStateResponseTopic{TopicID: t.TopicID}
		for _, p := range t.Partitions {
			st := share.NewPartition(p.StartOffset)
			st.StateEpoch = p.StateEpoch
			a := b.shares.Serve(coordinator.ShareOp{API: coordinator.ShareInit, Key: shareKey(q.GroupID, t.TopicID, p.Partition), State: st}, b.now)
			rt.Partitions = append(rt.Partitions, kmsg.InitializeShareGroupStateResponseTopicPartition{Partition: p.Partition, ErrorCode: a.Code})
		}
		rs.Topics = append(rs.Topics, rt)
	}
}

func askInitializeShareState(op coordinator.ShareOp) *kmsg.InitializeShareGroupStateRequest {
	q := kmsg.NewPtrInitializeShareGroupStateRequest()
	q.GroupID = op.Key.Group
	q.Topics = []kmsg.InitializeShareGroupStateRequestTopic{{TopicID: op.Key.TopicID, Partitions: []kmsg.InitializeShareGroupStateRequestTopicPartition{
		{Partition: op.Key.Partition, StateEpoch: op.State.StateEpoch, StartOffset: op.State.Start}}}}
	return q
}
