package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/share"
)

// ShareAcknowledge v1-2 (KIP-932): a share group member acknowledges
// records without fetching (share_fetch.go).
func init() {
	register(79, api{
		min: 1, max: 2, serve: handleShareAck,
		acl: onGroupThenTopics{kmsg.ACLOperationRead},
	})
}

func handleShareAck(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ShareAcknowledgeRequest)
	resp := req.ResponseKind().(*kmsg.ShareAcknowledgeResponse)
	group, member := shareIDs(req.GroupID, req.MemberID)
	resp.AcquisitionLockTimeoutMillis = int32(b.groupInt64(group, "share.record.lock.duration.ms"))
	if group == "" || member == "" {
		resp.ErrorCode = kerr.InvalidRequest.Code
		return resp
	}
	if code := b.share.CheckSession(group, member, req.ShareSessionEpoch); code != 0 {
		resp.ErrorCode = code
		return resp
	}
	until := b.renewUntil(group, req.IsRenewAck)
	for _, t := range req.Topics {
		rt := kmsg.NewShareAcknowledgeResponseTopic()
		rt.TopicID = t.TopicID
		for _, p := range t.Partitions {
			var bs []share.AckBatch
			for _, a := range p.AcknowledgementBatches {
				bs = append(bs, share.AckBatch{First: a.FirstOffset, Last: a.LastOffset, Types: a.AcknowledgeTypes})
			}
			rp := kmsg.NewShareAcknowledgeResponseTopicPartition()
			rp.Partition = p.Partition
			rp.ErrorCode = b.shareAck(group, member, share.TP{TopicID: t.TopicID, Partition: p.Partition}, bs, until)
			rp.CurrentLeader.LeaderID, rp.CurrentLeader.LeaderEpoch = -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	b.share.Next(group, member, req.ShareSessionEpoch)
	req2 := *r
	b.persistShare(func(failed map[share.Key]int16) {
		for i := range resp.Topics {
			t := &resp.Topics[i]
			for j := range t.Partitions {
				if p := &t.Partitions[j]; p.ErrorCode == 0 {
					p.ErrorCode = failed[share.Key{Group: group, TopicID: t.TopicID, Partition: p.Partition}]
				}
			}
		}
		b.reply(req2, resp)
	})
	b.wakeShareFetches()
	return nil
}
