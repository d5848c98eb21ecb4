package describe

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// SyncGroup (key 14): the answer's assignment decoded from the
// consumer protocol's bytes (ConsumerProtocolAssignment).
func init() {
	describes(syncGroupRequest)
	describes(syncGroupResponse)
}

func syncGroupRequest(m *kmsg.SyncGroupRequest) string {
	return fmt.Sprintf("SyncGroup group=%s generation=%d member=%s assignments=%d", m.Group, m.Generation, m.MemberID, len(m.GroupAssignment))
}

func syncGroupResponse(m *kmsg.SyncGroupResponse) string {
	if m.ErrorCode != 0 {
		return "SyncGroup" + errField(m.ErrorCode)
	}
	return "SyncGroup assignment=" + assignment(m.MemberAssignment)
}
