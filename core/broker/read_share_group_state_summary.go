//go:build !noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
)

// ReadShareGroupStateSummary v0-1 (87): a share partition's start
// offset, epochs and records done, for DescribeShareGroupOffsets' lag
// (share_offsets.go); share_state.go.
func init() {
	registerShareState(coordinator.ShareSummary, 0, 1, serveShareStateSummary, askShareStateSummary, answerShareStateSummary)
}

func serveShareStateSummary(b *Broker, q *kmsg.ReadShareGroupStateSummaryRequest, rs *kmsg.ReadShareGroupStateSummaryResponse) {
	for _, t := range q.Topics {
		rt := kmsg.ReadShareGroupStateSummaryResponseTopic{TopicID: t.TopicID}
		for _, p := range t.Partitions {
			a := b.shares.Serve(coordinator.ShareOp{API: coordinator.ShareSummary, Key: shareKey(q.GroupID, t.TopicID, p.Partition)}, b.now)
			rp := kmsg.NewReadShareGroupStateSummaryResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.StartOffset, rp.LeaderEpoch = p.Partition, a.Code, -1, -1
			if a.Code == 0 {
				rp.StateEpoch, rp.LeaderEpoch, rp.StartOffset, rp.DeliveryCompleteCount = a.State.StateEpoch, a.State.LeaderEpoch, a.State.Start, a.Complete
			}
			rt.Partitions = append(rt.Partitions, rp)
		}
		rs.Topics = append(rs.Topics, rt)
	}
}

// askShareStateSummary asks v1, which carries the records done.
func askShareStateSummary(op coordinator.ShareOp) *kmsg.ReadShareGroupStateSummaryRequest {
	q := kmsg.NewPtrReadShareGroupStateSummaryRequest()
	q.SetVersion(1)
	q.GroupID = op.Key.Group
	q.Topics = []kmsg.ReadShareGroupStateSummaryRequestTopic{{TopicID: op.Key.TopicID, Partitions: []kmsg.ReadShareGroupStateSummaryRequestTopicPartition{
		{Partition: op.Key.Partition, LeaderEpoch: -1}}}}
	return q
}

func answerShareStateSummary(m *kmsg.ReadShareGroupStateSummaryResponse) (coordinator.ShareAnswer, bool) {
	if len(m.Topics) != 1 || len(m.Topics[0].Partitions) != 1 {
		return coordinator.ShareAnswer{}, false
	}
	p := m.Topics[0].Partitions[0]
	st := share.NewPartition(p.StartOffset)
	st.StateEpoch, st.LeaderEpoch = p.StateEpoch, p.LeaderEpoch
	return coordinator.ShareAnswer{Code: p.ErrorCode, Complete: p.DeliveryCompleteCount, State: st}, true
}
