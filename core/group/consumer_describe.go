package group

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// ConsumerGroupDescribe v0-1 (KIP-848): each member's current and target
// assignment, by topic id and name. A classic or unknown group is
// GROUP_ID_NOT_FOUND.
func (c *Coordinator) consumerDescribe(req *kmsg.ConsumerGroupDescribeRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.ConsumerGroupDescribeResponse)
	for _, id := range req.Groups {
		dg := kmsg.NewConsumerGroupDescribeResponseGroup()
		dg.Group = id
		g := c.groups[id]
		if g == nil || g.typ != Consumer || g.cg == nil {
			dg.ErrorCode = kerr.GroupIDNotFound.Code
			resp.Groups = append(resp.Groups, dg)
			continue
		}
		cg := g.cg
		dg.State, dg.Epoch, dg.AssignmentEpoch, dg.AssignorName = string(g.state), cg.epoch, cg.assignmentEpoch, cg.assignor
		for _, mid := range sortedKeys(cg.members) {
			m := cg.members[mid]
			dm := kmsg.NewConsumerGroupDescribeResponseGroupMember()
			dm.MemberID, dm.MemberEpoch, dm.ClientID, dm.ClientHost = m.id, m.epoch, m.clientID, m.clientHost
			if m.instanceID != "" {
				inst := m.instanceID
				dm.InstanceID = &inst
			}
			if m.rackID != "" {
				rack := m.rackID
				dm.RackID = &rack
			}
			dm.SubscribedTopics, dm.MemberType = m.topics, 1 // 1: a consumer-protocol member
			if m.classic != nil {
				dm.MemberType = 0 // a classic-protocol member
			}
			if m.regex != "" {
				re := m.regex
				dm.SubscribedTopicRegex = &re
			}
			var cur []assign.TopicPartition
			//purity:unordered describeAssignment sorts what it collects
			for tp := range m.assigned {
				cur = append(cur, tp)
			}
			dm.Assignment = c.describeAssignment(cur)
			dm.TargetAssignment = c.describeAssignment(cg.target[m.id])
			dg.Members = append(dg.Members, dm)
		}
		resp.Groups = append(resp.Groups, dg)
	}
	return resp
}

func (c *Coordinator) describeAssignment(tps []assign.TopicPartition) kmsg.Assignment {
	tps = assign.SortPartitions(append([]assign.TopicPartition(nil), tps...))
	a := kmsg.NewAssignment()
	for i, tp := range tps {
		if i == 0 || tp.Topic != tps[i-1].Topic {
			id, _, _ := c.cfg.Topics.Topic(tp.Topic)
			a.TopicPartitions = append(a.TopicPartitions, kmsg.AssignmentTopicPartition{TopicID: id, Topic: tp.Topic})
		}
		last := &a.TopicPartitions[len(a.TopicPartitions)-1]
		last.Partitions = append(last.Partitions, tp.Partition)
	}
	return a
}

// consumerCommitAllowed checks an OffsetCommit to a KIP-848 group: the
// member must exist and commit under its current or previous epoch
// (STALE_MEMBER_EPOCH otherwise); a simple commit needs an empty group.
func (c *Coordinator) consumerCommitAllowed(g *Group, memberID string, epoch int32, simple bool, version int16) int16 {
	if simple && len(g.cg.members) == 0 {
		return 0
	}
	m := g.cg.members[memberID]
	switch {
	case m == nil:
		return kerr.UnknownMemberID.Code
	case epoch != m.epoch && epoch != m.prevEpoch && version >= 9:
		return kerr.StaleMemberEpoch.Code
	case epoch != m.epoch && epoch != m.prevEpoch:
		return kerr.IllegalGeneration.Code
	}
	return 0
}

// consumerFetchAllowed checks an OffsetFetch v9+ naming a KIP-848 member.
func (c *Coordinator) consumerFetchAllowed(g *Group, memberID string, epoch int32) int16 {
	m := g.cg.members[memberID]
	switch {
	case m == nil:
		return kerr.UnknownMemberID.Code
	case epoch != m.epoch && epoch != m.prevEpoch:
		return kerr.StaleMemberEpoch.Code
	}
	return 0
}
