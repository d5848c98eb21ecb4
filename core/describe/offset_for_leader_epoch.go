package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetForLeaderEpoch (key 23, KIP-101, KIP-279): the epochs asked
// about and where each ends.
func init() {
	describes(offsetForLeaderEpochRequest)
	describes(offsetForLeaderEpochResponse)
}

func offsetForLeaderEpochRequest(m *kmsg.OffsetForLeaderEpochRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d epoch=%d", t.Topic, p.Partition, p.LeaderEpoch))
		}
	}
	return "OffsetForLeaderEpoch " + strings.Join(parts, "; ")
}

func offsetForLeaderEpochResponse(m *kmsg.OffsetForLeaderEpochResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d epoch=%d end_offset=%d%s", t.Topic, p.Partition, p.LeaderEpoch, p.EndOffset, errField(p.ErrorCode)))
		}
	}
	return "OffsetForLeaderEpoch " + strings.Join(parts, "; ")
}
