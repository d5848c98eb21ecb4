//go:build !noquorum

package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/share"
)

// The share coordinator's inter-broker APIs (KIP-932), the wire side of
// share_coordinator.go: InitializeShareGroupState v0 (83),
// ReadShareGroupState v0 (84), WriteShareGroupState v0-1 (85),
// DeleteShareGroupState v0 (86) and ReadShareGroupStateSummary v0-1
// (87). A request is served one share partition (shareOp) at a time and
// answered once its appends are durable; shareRemote asks another
// broker. The single-broker build (noquorum) has no other broker and
// leaves this file out (share_remote_off.go).
func init() {
	for _, key := range []int16{shareInit, shareRead, shareDelete} {
		register(key, api{min: 0, max: 0, serve: handleShareState})
	}
	register(shareWrite, api{min: 0, max: 1, serve: handleShareState})
	register(shareSummary, api{min: 0, max: 1, serve: handleShareState})
}

func handleShareState(b *Broker, r *Request) kmsg.Response {
	b.collectWrites(func() {
		b.answerAfterWrites(*r, b.serveShareState(r), b.cfg.Settings.Int64("offsets.commit.timeout.ms"))
	})
	return nil
}

// serveShareState serves each share partition of a share state request
// on this broker's coordinator state, in the step in progress.
func (b *Broker) serveShareState(r *Request) kmsg.Response {
	resp := r.Msg.ResponseKind()
	serve := func(op shareOp) shareAnswer {
		op.api = r.Msg.Key()
		return b.coordinateShare(op)
	}
	key := func(group string, topic [16]byte, p int32) share.Key {
		return share.Key{Group: group, TopicID: topic, Partition: p}
	}
	switch q := r.Msg.(type) {
	case *kmsg.InitializeShareGroupStateRequest:
		rs := resp.(*kmsg.InitializeShareGroupStateResponse)
		for _, t := range q.Topics {
			rt := kmsg.InitializeShareGroupStateResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				st := share.NewPartition(p.StartOffset)
				st.StateEpoch = p.StateEpoch
				a := serve(shareOp{k: key(q.GroupID, t.TopicID, p.Partition), state: st})
				rt.Partitions = append(rt.Partitions, kmsg.InitializeShareGroupStateResponseTopicPartition{Partition: p.Partition, ErrorCode: a.code})
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.ReadShareGroupStateRequest:
		rs := resp.(*kmsg.ReadShareGroupStateResponse)
		for _, t := range q.Topics {
			rt := kmsg.ReadShareGroupStateResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				a := serve(shareOp{k: key(q.GroupID, t.TopicID, p.Partition), leaderEpoch: p.LeaderEpoch})
				rp := kmsg.NewReadShareGroupStateResponseTopicPartition()
				rp.Partition, rp.ErrorCode, rp.StartOffset = p.Partition, a.code, -1
				if a.code == 0 {
					rp.StateEpoch, rp.StartOffset = a.state.StateEpoch, a.state.Start
					for _, sb := range a.state.Batches() {
						rp.StateBatches = append(rp.StateBatches, kmsg.ReadShareGroupStateResponseTopicPartitionStateBatch{
							FirstOffset: sb.First, LastOffset: sb.Last, DeliveryState: int8(sb.State), DeliveryCount: sb.Count})
					}
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.WriteShareGroupStateRequest:
		rs := resp.(*kmsg.WriteShareGroupStateResponse)
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
					code = serve(shareOp{k: key(q.GroupID, t.TopicID, p.Partition), state: st}).code
				}
				rt.Partitions = append(rt.Partitions, kmsg.WriteShareGroupStateResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.DeleteShareGroupStateRequest:
		rs := resp.(*kmsg.DeleteShareGroupStateResponse)
		for _, t := range q.Topics {
			rt := kmsg.DeleteShareGroupStateResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				a := serve(shareOp{k: key(q.GroupID, t.TopicID, p.Partition)})
				rt.Partitions = append(rt.Partitions, kmsg.DeleteShareGroupStateResponseTopicPartition{Partition: p.Partition, ErrorCode: a.code})
			}
			rs.Topics = append(rs.Topics, rt)
		}
	case *kmsg.ReadShareGroupStateSummaryRequest:
		rs := resp.(*kmsg.ReadShareGroupStateSummaryResponse)
		for _, t := range q.Topics {
			rt := kmsg.ReadShareGroupStateSummaryResponseTopic{TopicID: t.TopicID}
			for _, p := range t.Partitions {
				a := serve(shareOp{k: key(q.GroupID, t.TopicID, p.Partition)})
				rp := kmsg.NewReadShareGroupStateSummaryResponseTopicPartition()
				rp.Partition, rp.ErrorCode, rp.StartOffset, rp.LeaderEpoch = p.Partition, a.code, -1, -1
				if a.code == 0 {
					rp.StateEpoch, rp.LeaderEpoch, rp.StartOffset, rp.DeliveryCompleteCount = a.state.StateEpoch, a.state.LeaderEpoch, a.state.Start, a.complete
				}
				rt.Partitions = append(rt.Partitions, rp)
			}
			rs.Topics = append(rs.Topics, rt)
		}
	}
	return resp
}

// shareRemote asks broker to, the coordinator of op's share partition,
// and hands done its answer (REQUEST_TIMED_OUT when none came).
func (b *Broker) shareRemote(to int32, op shareOp, done func(shareAnswer)) {
	k := op.k
	var req kmsg.Request
	switch op.api {
	case shareInit:
		q := kmsg.NewPtrInitializeShareGroupStateRequest()
		q.GroupID = k.Group
		q.Topics = []kmsg.InitializeShareGroupStateRequestTopic{{TopicID: k.TopicID, Partitions: []kmsg.InitializeShareGroupStateRequestTopicPartition{
			{Partition: k.Partition, StateEpoch: op.state.StateEpoch, StartOffset: op.state.Start}}}}
		req = q
	case shareRead:
		q := kmsg.NewPtrReadShareGroupStateRequest()
		q.GroupID = k.Group
		q.Topics = []kmsg.ReadShareGroupStateRequestTopic{{TopicID: k.TopicID, Partitions: []kmsg.ReadShareGroupStateRequestTopicPartition{
			{Partition: k.Partition, LeaderEpoch: op.leaderEpoch}}}}
		req = q
	case shareWrite:
		q := kmsg.NewPtrWriteShareGroupStateRequest()
		q.GroupID = k.Group
		wp := kmsg.NewWriteShareGroupStateRequestTopicPartition()
		wp.Partition, wp.StateEpoch, wp.LeaderEpoch, wp.StartOffset = k.Partition, op.state.StateEpoch, op.state.LeaderEpoch, op.state.Start
		for _, sb := range op.state.Batches() {
			wp.StateBatches = append(wp.StateBatches, kmsg.WriteShareGroupStateRequestTopicPartitionStateBatch{
				FirstOffset: sb.First, LastOffset: sb.Last, DeliveryState: int8(sb.State), DeliveryCount: sb.Count})
		}
		q.Topics = []kmsg.WriteShareGroupStateRequestTopic{{TopicID: k.TopicID, Partitions: []kmsg.WriteShareGroupStateRequestTopicPartition{wp}}}
		req = q
	case shareDelete:
		q := kmsg.NewPtrDeleteShareGroupStateRequest()
		q.GroupID = k.Group
		q.Topics = []kmsg.DeleteShareGroupStateRequestTopic{{TopicID: k.TopicID, Partitions: []kmsg.DeleteShareGroupStateRequestTopicPartition{{Partition: k.Partition}}}}
		req = q
	default:
		q := kmsg.NewPtrReadShareGroupStateSummaryRequest()
		q.SetVersion(1)
		q.GroupID = k.Group
		q.Topics = []kmsg.ReadShareGroupStateSummaryRequestTopic{{TopicID: k.TopicID, Partitions: []kmsg.ReadShareGroupStateSummaryRequestTopicPartition{
			{Partition: k.Partition, LeaderEpoch: -1}}}}
		req = q
	}
	b.send(to, req, func(r kmsg.Response) { done(shareAnswerOf(r)) })
}

// shareAnswerOf reads the answer for the one share partition a request
// of shareRemote named.
func shareAnswerOf(r kmsg.Response) shareAnswer {
	a := shareAnswer{code: kerr.RequestTimedOut.Code}
	switch m := r.(type) {
	case *kmsg.InitializeShareGroupStateResponse:
		if len(m.Topics) == 1 && len(m.Topics[0].Partitions) == 1 {
			a.code = m.Topics[0].Partitions[0].ErrorCode
		}
	case *kmsg.ReadShareGroupStateResponse:
		if len(m.Topics) == 1 && len(m.Topics[0].Partitions) == 1 {
			p := m.Topics[0].Partitions[0]
			bs := make([]share.StateBatch, len(p.StateBatches))
			for i, sb := range p.StateBatches {
				bs[i] = share.StateBatch{First: sb.FirstOffset, Last: sb.LastOffset, State: share.State(sb.DeliveryState), Count: sb.DeliveryCount}
			}
			st, err := share.FromBatches(p.StartOffset, bs)
			a.code = p.ErrorCode
			if err != nil && a.code == 0 {
				a.code = kerr.InvalidRequest.Code
			}
			if a.code == 0 {
				st.StateEpoch = p.StateEpoch
				a.state = st
			}
		}
	case *kmsg.WriteShareGroupStateResponse:
		if len(m.Topics) == 1 && len(m.Topics[0].Partitions) == 1 {
			a.code = m.Topics[0].Partitions[0].ErrorCode
		}
	case *kmsg.DeleteShareGroupStateResponse:
		if len(m.Topics) == 1 && len(m.Topics[0].Partitions) == 1 {
			a.code = m.Topics[0].Partitions[0].ErrorCode
		}
	case *kmsg.ReadShareGroupStateSummaryResponse:
		if len(m.Topics) == 1 && len(m.Topics[0].Partitions) == 1 {
			p := m.Topics[0].Partitions[0]
			a.code, a.complete = p.ErrorCode, p.DeliveryCompleteCount
			st := share.NewPartition(p.StartOffset)
			st.StateEpoch, st.LeaderEpoch = p.StateEpoch, p.LeaderEpoch
			a.state = st
		}
	}
	return a
}
