package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// ConsumerGroupHeartbeat v0-1: a member of a KIP-848 group joins,
// heartbeats and is assigned by the coordinator.
func init() {
	register(68, api{
		min: 0, max: 1, serve: handleGroupWrite,
		group: routedBy(func(m *kmsg.ConsumerGroupHeartbeatRequest) string { return m.Group }),
		joins: true,
		acl:   onHeartbeat{},
	})
}
