//go:build !noquorum

package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterPartitionAssignments (key 45, Kafka's AlterPartitionReassignments,
// KIP-455): each partition with its target replicas, or cancel for null
// replicas; the answer with each partition's error. Only clusters move
// partitions, so the single-broker browser build (noquorum) leaves it out
// and describes it generically.
func init() {
	describes(reassignRequest)
	describes(reassignResponse)
}

func reassignRequest(m *kmsg.AlterPartitionAssignmentsRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			target := "cancel"
			if p.Replicas != nil {
				target = "replicas=" + ids(p.Replicas)
			}
			parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, target))
		}
	}
	return "AlterPartitionAssignments " + strings.Join(parts, "; ")
}

func reassignResponse(m *kmsg.AlterPartitionAssignmentsResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d%s", t.Topic, p.Partition, errField(p.ErrorCode)))
		}
	}
	return "AlterPartitionAssignments " + strings.Join(parts, "; ") + errField(m.ErrorCode)
}
