package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// LeaveGroup v0-5: a member leaves, or from v3 a batch of them
// (KIP-345).
func init() {
	register(13, api{
		min: 0, max: 5, serve: handleGroupWrite,
		group: routedBy(func(m *kmsg.LeaveGroupRequest) string { return m.Group }),
		acl:   onGroup{kmsg.ACLOperationRead},
	})
}
