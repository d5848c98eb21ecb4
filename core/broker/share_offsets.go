package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/share"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The share-group offset admin APIs (KIP-932): DescribeShareGroupOffsets
// v0-1 gives each share partition's start offset (-1 where the group
// never read) and, from v1, its lag: the records from the start offset to
// the high watermark not yet acknowledged or archived.
// AlterShareGroupOffsets v0 moves start offsets, and
// DeleteShareGroupOffsets v0 forgets a group's topics; both need a group
// without members (NON_EMPTY_GROUP), as a consumer group's offset reset
// does.
func handleShareOffsets(b *Broker, r *Request) kmsg.Response {
	switch req := r.Msg.(type) {
	case *kmsg.DescribeShareGroupOffsetsRequest:
		return b.describeShareOffsets(req)
	case *kmsg.AlterShareGroupOffsetsRequest:
		return b.alterShareOffsets(req)
	case *kmsg.DeleteShareGroupOffsetsRequest:
		return b.deleteShareOffsets(req)
	}
	return wire.ErrorResponse(r.Msg, kerr.InvalidRequest.Code)
}

func (b *Broker) describeShareOffsets(req *kmsg.DescribeShareGroupOffsetsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DescribeShareGroupOffsetsResponse)
	for _, rg := range req.Groups {
		g := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
		g.GroupID = rg.GroupID
		if !b.coordinatesGroup(rg.GroupID) {
			g.ErrorCode = kerr.NotCoordinator.Code
			resp.Groups = append(resp.Groups, g)
			continue
		}
		type want struct {
			topic string
			parts []int32
		}
		var wants []want
		if rg.Topics == nil { // v1: every topic the group has state for
			seen := map[string]int{}
			for _, k := range b.share.Partitions(rg.GroupID) {
				name, _, ok := groupTopics{b}.TopicByID(k.TopicID)
				if !ok {
					continue
				}
				i, ok := seen[name]
				if !ok {
					i = len(wants)
					seen[name] = i
					wants = append(wants, want{topic: name})
				}
				wants[i].parts = append(wants[i].parts, k.Partition)
			}
		}
		for _, t := range rg.Topics {
			wants = append(wants, want{t.Topic, t.Partitions})
		}
		for _, w := range wants {
			t := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
			t.Topic = w.topic
			id, _, ok := groupTopics{b}.Topic(w.topic)
			t.TopicID = id
			for _, idx := range w.parts {
				rp := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
				rp.Partition, rp.StartOffset, rp.LeaderEpoch, rp.Lag = idx, -1, -1, -1
				if !ok {
					rp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				} else if sp := b.share.Partition(share.Key{Group: rg.GroupID, TopicID: id, Partition: idx}); sp != nil {
					rp.StartOffset = sp.Start
					if p := b.lookup("", id).partition(idx); p != nil {
						rp.LeaderEpoch = p.LeaderEpoch
						rp.Lag = p.HighWatermark - sp.Start
						for _, rec := range sp.Records() {
							if rec.State == share.Acknowledged || rec.State == share.Archived {
								rp.Lag--
							}
						}
					}
				}
				t.Partitions = append(t.Partitions, rp)
			}
			g.Topics = append(g.Topics, t)
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp
}

// shareGroupIdle is the error for altering a share group's offsets: it
// must be coordinated here and have no members.
func (b *Broker) shareGroupIdle(id string) *kerr.Error {
	switch {
	case !b.coordinatesGroup(id):
		return kerr.NotCoordinator
	case b.shareGroupConflict(id):
		return kerr.GroupIDNotFound
	case b.share.Group(id) != nil && b.share.Group(id).State() != "Empty":
		return kerr.NonEmptyGroup
	}
	return nil
}

func (b *Broker) alterShareOffsets(req *kmsg.AlterShareGroupOffsetsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.AlterShareGroupOffsetsResponse)
	if err := b.shareGroupIdle(req.GroupID); err != nil {
		resp.ErrorCode = err.Code
		return resp
	}
	for _, rt := range req.Topics {
		t := kmsg.NewAlterShareGroupOffsetsResponseTopic()
		t.Topic = rt.Topic
		id, n, ok := groupTopics{b}.Topic(rt.Topic)
		t.TopicID = id
		for _, rp := range rt.Partitions {
			p := kmsg.NewAlterShareGroupOffsetsResponseTopicPartition()
			p.Partition = rp.Partition
			switch {
			case !ok || rp.Partition < 0 || rp.Partition >= n:
				p.ErrorCode = kerr.UnknownTopicOrPartition.Code
			default:
				k := share.Key{Group: req.GroupID, TopicID: id, Partition: rp.Partition}
				b.share.Init(k, rp.StartOffset).Reset(rp.StartOffset)
				b.share.Touch(k)
			}
			t.Partitions = append(t.Partitions, p)
		}
		resp.Topics = append(resp.Topics, t)
	}
	b.writeShareState()
	return resp
}

func (b *Broker) deleteShareOffsets(req *kmsg.DeleteShareGroupOffsetsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DeleteShareGroupOffsetsResponse)
	if err := b.shareGroupIdle(req.GroupID); err != nil {
		resp.ErrorCode = err.Code
		return resp
	}
	for _, rt := range req.Topics {
		t := kmsg.NewDeleteShareGroupOffsetsResponseTopic()
		t.Topic = rt.Topic
		id, _, ok := groupTopics{b}.Topic(rt.Topic)
		t.TopicID = id
		if ok {
			b.share.Delete(req.GroupID, &id)
		} else {
			t.ErrorCode = kerr.UnknownTopicOrPartition.Code
		}
		resp.Topics = append(resp.Topics, t)
	}
	b.writeShareState()
	return resp
}
