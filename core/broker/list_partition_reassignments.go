package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// ListPartitionReassignments v0 (KIP-455; reassign.go).
func init() {
	register(46, api{
		min: 0, max: 0, serve: byController(applyListReassignments),
		acl: onCluster{kmsg.ACLOperationDescribe},
	})
}

// applyListReassignments is how a single broker, its own controller, serves it.
func applyListReassignments(b *Broker, r *Request) kmsg.Response {
	return cluster.ListReassignments(b.soloImage(), r.Msg.(*kmsg.ListPartitionReassignmentsRequest))
}
