//go:build !noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
)

// DeleteShareGroupState v0 (86): a deleted share group's share
// partitions, or an admin's DeleteShareGroupOffsets, become uninitialized
// with the next state epoch (share_offsets.go); share_state.go.
func init() {
	registerShareState(coordinator.ShareDelete, 0, 0, serveDeleteShareState, askDeleteShareState,
		func(m *kmsg.DeleteShareGroupStateResponse) (coordinator.ShareAnswer, bool) {
			if len(m.Topics) != 1 || len(m.Topics[0].Partitions) != 1 {
				return coordinator.ShareAnswer{}, false
			}
			return coordinator.ShareAnswer{Code: m.Topics[0].Partitions[0].ErrorCode}, true
		})
}

func serveDeleteShareState(b *Broker, q *kmsg.DeleteShareGroupStateRequest, rs *kmsg.DeleteShareGroupStateResponse) {
	for _, t := range q.Topics {
		rt := kmsg.DeleteShareGroupStateResponseTopic{TopicID: t.TopicID}
		for _, p := range t.Partitions {
			a := b.shares.Serve(coordinator.ShareOp{API: coordinator.ShareDelete, Key: shareKey(q.GroupID, t.TopicID, p.Partition)}, b.now)
			rt.Partitions = append(rt.Partitions, kmsg.DeleteShareGroupStateResponseTopicPartition{Partition: p.Partition, ErrorCode: a.Code})
		}
		rs.Topics = append(rs.Topics, rt)
	}
}

func askDeleteShareState(op coordinator.ShareOp) *kmsg.DeleteShareGroupStateRequest {
	q := kmsg.NewPtrDeleteShareGroupStateRequest()
	q.GroupID = op.Key.Group
	q.Topics = []kmsg.DeleteShareGroupStateRequestTopic{{TopicID: op.Key.TopicID, Partitions: []kmsg.DeleteShareGroupStateRequestTopicPartition{{Partition: op.Key.Partition}}}}
	return q
}
