//go:build !noquorum

package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeReassign renders AlterPartitionAssignments (Kafka's
// AlterPartitionReassignments, KIP-455): each partition with its target
// replicas, or cancel for null replicas; the answer with each partition's
// error. Only clusters move partitions, so the single-broker browser build
// (noquorum) leaves it out (reassign_off.go).
func describeReassign(msg any) (string, bool) {
	var parts []string
	switch m := msg.(type) {
	case *kmsg.AlterPartitionAssignmentsRequest:
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				target := "cancel"
				if p.Replicas != nil {
					target = "replicas=" + ids(p.Replicas)
				}
				parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, target))
			}
		}
		return "AlterPartitionAssignments " + strings.Join(parts, "; "), true
	case *kmsg.AlterPartitionAssignmentsResponse:
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d%s", t.Topic, p.Partition, errField(p.ErrorCode)))
			}
		}
		return "AlterPartitionAssignments " + strings.Join(parts, "; ") + errField(m.ErrorCode), true
	}
	return "", false
}
