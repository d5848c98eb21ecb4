package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// ConsumerGroupDescribe v0-1: many KIP-848 groups, each answered by
// its coordinator (coordinator.Groups.MarkForeign).
func init() {
	register(69, api{
		min: 0, max: 1, serve: handleGroupRead, manyGroups: true,
		acl: onGroups{op: kmsg.ACLOperationDescribe, list: "Groups", key: "Group", hide: true},
		ops: describedGroupsOps,
	})
}
