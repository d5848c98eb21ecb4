package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeShare renders the share group messages (KIP-932), and the
// group configs that steer them. Partitions are named by index (p0): the
// messages carry topic ids only.
func describeShare(msg any) (string, bool) {
	switch m := msg.(type) {
	case *kmsg.ShareGroupHeartbeatRequest:
		s := fmt.Sprintf("ShareGroupHeartbeat group=%s member=%s epoch=%d", m.GroupID, orDash(m.MemberID), m.MemberEpoch)
		if m.SubscribedTopicNames != nil {
			s += " topics=" + strings.Join(m.SubscribedTopicNames, ",")
		}
		return s, true
	case *kmsg.ShareGroupHeartbeatResponse:
		s := fmt.Sprintf("ShareGroupHeartbeat member=%s epoch=%d", orDash(deref(m.MemberID)), m.MemberEpoch)
		if m.Assignment != nil {
			var ps []string
			for _, t := range m.Assignment.TopicPartitions {
				for _, p := range t.Partitions {
					ps = append(ps, fmt.Sprintf("p%d", p))
				}
			}
			s += " assigned=[" + strings.Join(ps, " ") + "]"
		}
		return s + errField(m.ErrorCode), true
	case *kmsg.ShareFetchRequest:
		var ps []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				ps = append(ps, fmt.Sprintf("p%d%s", p.Partition, acks(p.AcknowledgementBatches)))
			}
		}
		return fmt.Sprintf("ShareFetch group=%s member=%s session_epoch=%d %s", deref(m.GroupID), deref(m.MemberID), m.ShareSessionEpoch, strings.Join(ps, " ")), true
	case *kmsg.ShareFetchResponse:
		var ps []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				s := fmt.Sprintf("p%d", p.Partition)
				for _, a := range p.AcquiredRecords {
					s += fmt.Sprintf(" acquired=%d..%d(delivery %d)", a.FirstOffset, a.LastOffset, a.DeliveryCount)
				}
				if p.AcknowledgeErrorCode != 0 {
					s += " ack_error=" + ErrorName(p.AcknowledgeErrorCode)
				}
				ps = append(ps, s+errField(p.ErrorCode))
			}
		}
		return fmt.Sprintf("ShareFetch lock=%dms %s", m.AcquisitionLockTimeoutMillis, strings.Join(ps, "; ")) + errField(m.ErrorCode), true
	case *kmsg.ShareAcknowledgeRequest:
		var ps []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				ps = append(ps, fmt.Sprintf("p%d%s", p.Partition, acks(p.AcknowledgementBatches)))
			}
		}
		return fmt.Sprintf("ShareAcknowledge member=%s session_epoch=%d %s", deref(m.MemberID), m.ShareSessionEpoch, strings.Join(ps, " ")), true
	case *kmsg.ShareAcknowledgeResponse:
		var ps []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				ps = append(ps, fmt.Sprintf("p%d%s", p.Partition, errField(p.ErrorCode)))
			}
		}
		return "ShareAcknowledge " + strings.Join(ps, " ") + errField(m.ErrorCode), true
	case *kmsg.IncrementalAlterConfigsRequest:
		return groupConfigs(m)
	}
	return "", false
}

// groupConfigs renders an IncrementalAlterConfigs of group configs (the
// simulator's group-config command); other resources are left to the
// generic form.
func groupConfigs(m *kmsg.IncrementalAlterConfigsRequest) (string, bool) {
	var b strings.Builder
	b.WriteString("IncrementalAlterConfigs")
	for _, r := range m.Resources {
		if r.ResourceType != kmsg.ConfigResourceTypeGroupConfig {
			return "", false
		}
		fmt.Fprintf(&b, " group=%s", r.ResourceName)
		for _, c := range r.Configs {
			if c.Op == kmsg.IncrementalAlterConfigOpDelete {
				fmt.Fprintf(&b, " %s=(delete)", c.Name)
			} else {
				fmt.Fprintf(&b, " %s=%s", c.Name, deref(c.Value))
			}
		}
	}
	return b.String(), len(m.Resources) > 0
}

// acks renders acknowledgement batches as " accept=0..2 release=3".
func acks[B kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch | kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch](bs []B) string {
	names := []string{"gap", "accept", "release", "reject"}
	var b strings.Builder
	for _, x := range bs {
		a := kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch(x)
		typ := "mixed"
		if len(a.AcknowledgeTypes) == 1 && int(a.AcknowledgeTypes[0]) < len(names) {
			typ = names[a.AcknowledgeTypes[0]]
		}
		fmt.Fprintf(&b, " %s=%d..%d", typ, a.FirstOffset, a.LastOffset)
	}
	return b.String()
}
