package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// DescribeGroups v0-5: many groups, each answered by its coordinator
// (coordinator.Groups.MarkForeign).
func init() {
	register(15, api{
		min: 0, max: 5, serve: handleGroupRead, manyGroups: true,
		acl: onGroups{op: kmsg.ACLOperationDescribe, list: "Groups", key: "Group"},
		ops: describedGroupsOps,
	})
}
