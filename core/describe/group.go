package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// describeGroup renders the consumer group messages that describe.go does
// not: the answers of SyncGroup and Heartbeat (KIP-62), LeaveGroup
// (KIP-345 batches), OffsetCommit, the admin APIs, and the KIP-848
// ConsumerGroupHeartbeat; ok is false for other messages. Assignments are
// decoded from the consumer protocol's bytes (ConsumerProtocolAssignment).
func describeGroup(msg any) (string, bool) {
	switch m := msg.(type) {
	case *kmsg.SyncGroupResponse:
		if m.ErrorCode != 0 {
			return "SyncGroup" + errField(m.ErrorCode), true
		}
		return "SyncGroup assignment=" + assignment(m.MemberAssignment), true
	case *kmsg.HeartbeatResponse:
		return "Heartbeat " + ErrorName(m.ErrorCode), true
	case *kmsg.LeaveGroupRequest:
		if m.Version < 3 {
			return fmt.Sprintf("LeaveGroup group=%s member=%s", m.Group, m.MemberID), true
		}
		var ids []string
		for _, lm := range m.Members {
			ids = append(ids, memberName(lm.MemberID, lm.InstanceID))
		}
		return fmt.Sprintf("LeaveGroup group=%s members=%s", m.Group, strings.Join(ids, ",")), true
	case *kmsg.LeaveGroupResponse:
		if m.Version < 3 || m.ErrorCode != 0 {
			return "LeaveGroup " + ErrorName(m.ErrorCode), true
		}
		var parts []string
		for _, lm := range m.Members {
			parts = append(parts, memberName(lm.MemberID, lm.InstanceID)+" "+ErrorName(lm.ErrorCode))
		}
		return "LeaveGroup " + strings.Join(parts, ", "), true
	case *kmsg.OffsetCommitRequest:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d=%d", t.Topic, p.Partition, p.Offset))
			}
		}
		return fmt.Sprintf("OffsetCommit group=%s generation=%d member=%s %s", m.Group, m.Generation, orDash(m.MemberID), strings.Join(parts, " ")), true
	case *kmsg.OffsetCommitResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
			}
		}
		return "OffsetCommit " + strings.Join(parts, ", "), true
	case *kmsg.DescribeGroupsRequest:
		return "DescribeGroups " + strings.Join(m.Groups, ","), true
	case *kmsg.DescribeGroupsResponse:
		var parts []string
		for _, g := range m.Groups {
			parts = append(parts, fmt.Sprintf("%s state=%s protocol=%s members=%d%s", g.Group, g.State, orDash(g.Protocol), len(g.Members), errField(g.ErrorCode)))
		}
		return "DescribeGroups " + strings.Join(parts, "; "), true
	case *kmsg.ListGroupsRequest:
		return "ListGroups", true
	case *kmsg.ListGroupsResponse:
		var parts []string
		for _, g := range m.Groups {
			parts = append(parts, fmt.Sprintf("%s=%s", g.Group, orDash(g.GroupState)))
		}
		return "ListGroups " + strings.Join(parts, " ") + errField(m.ErrorCode), true
	case *kmsg.DeleteGroupsRequest:
		return "DeleteGroups " + strings.Join(m.Groups, ","), true
	case *kmsg.DeleteGroupsResponse:
		var parts []string
		for _, g := range m.Groups {
			parts = append(parts, g.Group+" "+ErrorName(g.ErrorCode))
		}
		return "DeleteGroups " + strings.Join(parts, ", "), true
	case *kmsg.OffsetDeleteRequest:
		var tps []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p.Partition))
			}
		}
		return fmt.Sprintf("OffsetDelete group=%s %s", m.Group, strings.Join(tps, ",")), true
	case *kmsg.OffsetDeleteResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
			}
		}
		return "OffsetDelete " + strings.Join(parts, ", ") + errField(m.ErrorCode), true
	case *kmsg.ConsumerGroupHeartbeatRequest:
		s := fmt.Sprintf("ConsumerGroupHeartbeat group=%s member=%s epoch=%d", m.Group, orDash(m.MemberID), m.MemberEpoch)
		if m.SubscribedTopicNames != nil {
			s += " topics=" + strings.Join(m.SubscribedTopicNames, ",")
		}
		return s, true
	case *kmsg.ConsumerGroupHeartbeatResponse:
		s := fmt.Sprintf("ConsumerGroupHeartbeat member=%s epoch=%d", orDash(deref(m.MemberID)), m.MemberEpoch)
		if m.Assignment != nil {
			n := 0
			for _, t := range m.Assignment.Topics {
				n += len(t.Partitions)
			}
			s += fmt.Sprintf(" assigned=%d", n)
		}
		return s + errField(m.ErrorCode), true
	}
	return "", false
}

// assignment decodes a ConsumerProtocolAssignment as T1[0 1] T2[3], "-"
// when empty.
func assignment(b []byte) string {
	tps, err := assign.DecodeAssignment(b)
	if err != nil {
		return fmt.Sprintf("<%d bytes>", len(b))
	}
	if len(tps) == 0 {
		return "-"
	}
	return strings.TrimPrefix(assign.Assignment{"": tps}.String(), ": ")
}

func memberName(id string, instance *string) string {
	if instance != nil {
		return fmt.Sprintf("%s(instance=%s)", orDash(id), *instance)
	}
	return id
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
