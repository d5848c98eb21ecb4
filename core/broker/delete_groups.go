package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// DeleteGroups v0-2: many groups, each answered by its coordinator
// (coordinator.Groups.MarkForeign).
func init() {
	register(42, api{
		min: 0, max: 2, serve: handleGroupWrite, manyGroups: true,
		acl: onGroups{op: kmsg.ACLOperationDelete, list: "Groups", key: "Group"},
	})
}
