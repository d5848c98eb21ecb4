package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// OffsetDelete v0: a group's committed offsets removed (KIP-496).
func init() {
	register(47, api{
		min: 0, max: 0, serve: handleGroupWrite,
		group: routedBy(func(m *kmsg.OffsetDeleteRequest) string { return m.Group }),
		acl:   onGroupThenTopics{kmsg.ACLOperationDelete},
	})
}
