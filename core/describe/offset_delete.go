package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetDelete (key 47, KIP-496).
func init() {
	describes(offsetDeleteRequest)
	describes(offsetDeleteResponse)
}

func offsetDeleteRequest(m *kmsg.OffsetDeleteRequest) string {
	var tps []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p.Partition))
		}
	}
	return fmt.Sprintf("OffsetDelete group=%s %s", m.Group, strings.Join(tps, ","))
}

func offsetDeleteResponse(m *kmsg.OffsetDeleteResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
		}
	}
	return "OffsetDelete " + strings.Join(parts, ", ") + errField(m.ErrorCode)
}
