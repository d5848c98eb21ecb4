package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// SyncGroup v0-5: the leader hands out the assignment, every member
// gets its own.
func init() {
	register(14, api{
		min: 0, max: 5, serve: handleGroupWrite,
		group: routedBy(func(m *kmsg.SyncGroupRequest) string { return m.Group }),
		acl:   onGroup{kmsg.ACLOperationRead},
	})
}
