package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ShareAcknowledge (key 79, KIP-932).
func init() {
	describes(shareAcknowledgeRequest)
	describes(shareAcknowledgeResponse)
}

func shareAcknowledgeRequest(m *kmsg.ShareAcknowledgeRequest) string {
	var ps []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			ps = append(ps, fmt.Sprintf("p%d%s", p.Partition, acks(p.AcknowledgementBatches)))
		}
	}
	return fmt.Sprintf("ShareAcknowledge member=%s session_epoch=%d %s", deref(m.MemberID), m.ShareSessionEpoch, strings.Join(ps, " "))
}

func shareAcknowledgeResponse(m *kmsg.ShareAcknowledgeResponse) string {
	var ps []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			ps = append(ps, fmt.Sprintf("p%d%s", p.Partition, errField(p.ErrorCode)))
		}
	}
	return "ShareAcknowledge " + strings.Join(ps, " ") + errField(m.ErrorCode)
}
