package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// ListPartitionReassignments v0 (KIP-455; reassign.go).
func init() {
	register(46, api{
		min: 0, max: 0, serve: handleListReassignments,
		acl: onCluster{kmsg.ACLOperationDescribe},
	})
}

func handleListReassignments(b *Broker, r *Request) kmsg.Response {
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	return cluster.ListReassignments(b.soloImage(), r.Msg.(*kmsg.ListPartitionReassignmentsRequest))
}
