package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ShareFetch (key 78, KIP-932): partitions by index (p0) with their
// acknowledgements; the answer's acquired records.
func init() {
	describes(shareFetchRequest)
	describes(shareFetchResponse)
}

func shareFetchRequest(m *kmsg.ShareFetchRequest) string {
	var ps []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			ps = append(ps, fmt.Sprintf("p%d%s", p.Partition, acks(p.AcknowledgementBatches)))
		}
	}
	return fmt.Sprintf("ShareFetch group=%s member=%s session_epoch=%d %s", deref(m.GroupID), deref(m.MemberID), m.ShareSessionEpoch, strings.Join(ps, " "))
}

func shareFetchResponse(m *kmsg.ShareFetchResponse) string {
	var ps []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			s := fmt.Sprintf("p%d", p.Partition)
			for _, a := range p.AcquiredRecords {
				s += fmt.Sprintf(" acquired=%d..%d(delivery %d)", a.FirstOffset, a.LastOffset, a.DeliveryCount)
			}
			if p.AcknowledgeErrorCode != 0 {
				s += " ack_error=" + ErrorName(p.AcknowledgeErrorCode)
			}
			ps = append(ps, s+errField(p.ErrorCode))
		}
	}
	return fmt.Sprintf("ShareFetch lock=%dms %s", m.AcquisitionLockTimeoutMillis, strings.Join(ps, "; ")) + errField(m.ErrorCode)
}

// acks renders acknowledgement batches as " accept=0..2 release=3".
func acks[B kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch | kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch](bs []B) string {
	names := []string{"gap", "accept", "release", "reject"}
	var b strings.Builder
	for _, x := range bs {
		a := kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch(x)
		typ := "mixed"
		if len(a.AcknowledgeTypes) == 1 && int(a.AcknowledgeTypes[0]) < len(names) {
			typ = names[a.AcknowledgeTypes[0]]
		}
		fmt.Fprintf(&b, " %s=%d..%d", typ, a.FirstOffset, a.LastOffset)
	}
	return b.String()
}
