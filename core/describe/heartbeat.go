package describe

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Heartbeat (key 12, KIP-62).
func init() {
	describes(heartbeatRequest)
	describes(heartbeatResponse)
}

func heartbeatRequest(m *kmsg.HeartbeatRequest) string {
	return fmt.Sprintf("Heartbeat group=%s generation=%d member=%s", m.Group, m.Generation, m.MemberID)
}

func heartbeatResponse(m *kmsg.HeartbeatResponse) string {
	return "Heartbeat " + ErrorName(m.ErrorCode)
}
