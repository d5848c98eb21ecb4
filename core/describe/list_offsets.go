package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets (key 2): the timestamps asked for, by their special names.
func init() {
	describes(listOffsetsRequest)
	describes(listOffsetsResponse)
}

func listOffsetsRequest(m *kmsg.ListOffsetsRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d timestamp=%s", t.Topic, p.Partition, specialTimestamp(p.Timestamp)))
		}
	}
	return "ListOffsets " + strings.Join(parts, "; ")
}

func listOffsetsResponse(m *kmsg.ListOffsetsResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d offset=%d timestamp=%d%s", t.Topic, p.Partition, p.Offset, p.Timestamp, errField(p.ErrorCode)))
		}
	}
	return "ListOffsets " + strings.Join(parts, "; ")
}

// specialTimestamp names the timestamps ListOffsets gives a meaning
// (KIP-734: max).
func specialTimestamp(ts int64) string {
	switch ts {
	case -1:
		return "latest"
	case -2:
		return "earliest"
	case -3:
		return "max"
	}
	return fmt.Sprint(ts)
}
