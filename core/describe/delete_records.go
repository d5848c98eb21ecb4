package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteRecords (key 21, KIP-107): the offsets to delete before, and
// the low watermarks they left.
func init() {
	describes(deleteRecordsRequest)
	describes(deleteRecordsResponse)
}

func deleteRecordsRequest(m *kmsg.DeleteRecordsRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d before=%d", t.Topic, p.Partition, p.Offset))
		}
	}
	return "DeleteRecords " + strings.Join(parts, "; ")
}

func deleteRecordsResponse(m *kmsg.DeleteRecordsResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d low_watermark=%d%s", t.Topic, p.Partition, p.LowWatermark, errField(p.ErrorCode)))
		}
	}
	return "DeleteRecords " + strings.Join(parts, "; ")
}
