package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterPartition (key 56, KIP-497): the ISR a leader asks for, and the
// one the controller answers.
func init() {
	describes(alterPartitionRequest)
	describes(alterPartitionResponse)
}

func alterPartitionRequest(m *kmsg.AlterPartitionRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d isr=%s", t.Topic, p.Partition, ids(p.NewISR)))
		}
	}
	return "AlterPartition " + strings.Join(parts, "; ")
}

func alterPartitionResponse(m *kmsg.AlterPartitionResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d isr=%s%s", t.Topic, p.Partition, ids(p.ISR), errField(p.ErrorCode)))
		}
	}
	return strings.TrimSpace("AlterPartition "+strings.Join(parts, "; ")) + errField(m.ErrorCode)
}
