package broker

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// AlterPartitionAssignments v0-1 (Kafka's AlterPartitionReassignments,
// KIP-455): forwarded to the controller in a cluster; a single broker
// answers from its own partitions (reassign.go).
func init() {
	register(45, api{
		min: 0, max: 1, serve: byController(applyAlterReassignments),
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

// applyAlterReassignments is how a single broker, its own controller, serves it.
func applyAlterReassignments(b *Broker, r *Request) kmsg.Response {
	resp, changes := cluster.AlterReassignments(b.soloImage(), r.Msg.(*kmsg.AlterPartitionAssignmentsRequest))
	if len(changes) > 0 {
		panic(fmt.Sprintf("broker: a single broker reassigned a partition it holds alone: %+v", changes[0].Change))
	}
	return resp
}
