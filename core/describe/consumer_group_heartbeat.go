package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ConsumerGroupHeartbeat (key 68, KIP-848): the subscription, and the
// number of partitions the answer assigns.
func init() {
	describes(consumerGroupHeartbeatRequest)
	describes(consumerGroupHeartbeatResponse)
}

func consumerGroupHeartbeatRequest(m *kmsg.ConsumerGroupHeartbeatRequest) string {
	s := fmt.Sprintf("ConsumerGroupHeartbeat group=%s member=%s epoch=%d", m.Group, orDash(m.MemberID), m.MemberEpoch)
	if m.SubscribedTopicNames != nil {
		s += " topics=" + strings.Join(m.SubscribedTopicNames, ",")
	}
	return s
}

func consumerGroupHeartbeatResponse(m *kmsg.ConsumerGroupHeartbeatResponse) string {
	s := fmt.Sprintf("ConsumerGroupHeartbeat member=%s epoch=%d", orDash(deref(m.MemberID)), m.MemberEpoch)
	if m.Assignment != nil {
		n := 0
		for _, t := range m.Assignment.Topics {
			n += len(t.Partitions)
		}
		s += fmt.Sprintf(" assigned=%d", n)
	}
	return s + errField(m.ErrorCode)
}
