package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// LeaveGroup (key 13): one member, or from v3 a batch of them (KIP-345).
func init() {
	describes(leaveGroupRequest)
	describes(leaveGroupResponse)
}

func leaveGroupRequest(m *kmsg.LeaveGroupRequest) string {
	if m.Version < 3 {
		return fmt.Sprintf("LeaveGroup group=%s member=%s", m.Group, m.MemberID)
	}
	var ids []string
	for _, lm := range m.Members {
		ids = append(ids, memberName(lm.MemberID, lm.InstanceID))
	}
	return fmt.Sprintf("LeaveGroup group=%s members=%s", m.Group, strings.Join(ids, ","))
}

func leaveGroupResponse(m *kmsg.LeaveGroupResponse) string {
	if m.Version < 3 || m.ErrorCode != 0 {
		return "LeaveGroup " + ErrorName(m.ErrorCode)
	}
	var parts []string
	for _, lm := range m.Members {
		parts = append(parts, memberName(lm.MemberID, lm.InstanceID)+" "+ErrorName(lm.ErrorCode))
	}
	return "LeaveGroup " + strings.Join(parts, ", ")
}
