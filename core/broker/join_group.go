package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// JoinGroup v0-9: a member joins a classic group's rebalance
// (core/group classic.go); v4+ asks a new member to rejoin with its id
// (KIP-394), v5+ carries a static member's instance id (KIP-345).
func init() {
	register(11, api{
		min: 0, max: 9, serve: handleGroupWrite,
		group: routedBy(func(m *kmsg.JoinGroupRequest) string { return m.Group }),
		joins: true,
		acl:   onGroup{kmsg.ACLOperationRead},
	})
}
