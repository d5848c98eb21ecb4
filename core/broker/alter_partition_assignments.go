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
		min: 0, max: 1, serve: handleAlterReassignments,
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

func handleAlterReassignments(b *Broker, r *Request) kmsg.Response {
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	resp, changes := cluster.AlterReassignments(b.soloImage(), r.Msg.(*kmsg.AlterPartitionAssignmentsRequest))
	if len(changes) > 0 {
		panic(fmt.Sprintf("broker: a single broker reassigned a partition it holds alone: %+v", changes[0].Change))
	}
	return resp
}
