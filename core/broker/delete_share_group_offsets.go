package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// DeleteShareGroupOffsets v0 (KIP-932; share_offsets.go).
func init() {
	register(92, api{
		min: 0, max: 0, serve: handleShareOffsets,
		acl: onGroupThenTopics{kmsg.ACLOperationDelete},
	})
}
