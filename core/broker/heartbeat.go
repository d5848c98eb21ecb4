package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// Heartbeat v0-4: a classic member keeps its session (KIP-62).
func init() {
	register(12, api{
		min: 0, max: 4, serve: handleGroupWrite,
		group: routedBy(func(m *kmsg.HeartbeatRequest) string { return m.Group }),
		acl:   onGroup{kmsg.ACLOperationRead},
	})
}
