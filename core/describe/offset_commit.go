package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetCommit (key 8): the offsets a member commits.
func init() {
	describes(offsetCommitRequest)
	describes(offsetCommitResponse)
}

func offsetCommitRequest(m *kmsg.OffsetCommitRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d=%d", t.Topic, p.Partition, p.Offset))
		}
	}
	return fmt.Sprintf("OffsetCommit group=%s generation=%d member=%s %s", m.Group, m.Generation, orDash(m.MemberID), strings.Join(parts, " "))
}

func offsetCommitResponse(m *kmsg.OffsetCommitResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
		}
	}
	return "OffsetCommit " + strings.Join(parts, ", ")
}
