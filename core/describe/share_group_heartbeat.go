package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ShareGroupHeartbeat (key 76, KIP-932): partitions are named by index
// (p0), as the messages carry topic ids only.
func init() {
	describes(shareGroupHeartbeatRequest)
	describes(shareGroupHeartbeatResponse)
}

func shareGroupHeartbeatRequest(m *kmsg.ShareGroupHeartbeatRequest) string {
	s := fmt.Sprintf("ShareGroupHeartbeat group=%s member=%s epoch=%d", m.GroupID, orDash(m.MemberID), m.MemberEpoch)
	if m.SubscribedTopicNames != nil {
		s += " topics=" + strings.Join(m.SubscribedTopicNames, ",")
	}
	return s
}

func shareGroupHeartbeatResponse(m *kmsg.ShareGroupHeartbeatResponse) string {
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
	return s + errField(m.ErrorCode)
}
