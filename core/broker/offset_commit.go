package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// OffsetCommit v0-9: a member commits its offsets to the group's
// coordinator, which writes them to __consumer_offsets (core/group).
func init() {
	register(8, api{
		min: 0, max: 9, serve: handleGroupWrite,
		group: routedBy(func(m *kmsg.OffsetCommitRequest) string { return m.Group }),
		acl:   onGroupThenTopics{kmsg.ACLOperationRead},
	})
}
