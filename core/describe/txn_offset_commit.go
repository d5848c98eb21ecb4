package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TxnOffsetCommit (key 28, KIP-98, KIP-447).
func init() {
	describes(txnOffsetCommitRequest)
	describes(txnOffsetCommitResponse)
}

func txnOffsetCommitRequest(m *kmsg.TxnOffsetCommitRequest) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d=%d", t.Topic, p.Partition, p.Offset))
		}
	}
	return fmt.Sprintf("TxnOffsetCommit transactional_id=%s group=%s pid=%d epoch=%d %s", m.TransactionalID, m.Group, m.ProducerID, m.ProducerEpoch, strings.Join(parts, " "))
}

func txnOffsetCommitResponse(m *kmsg.TxnOffsetCommitResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
		}
	}
	return "TxnOffsetCommit " + strings.Join(parts, ", ")
}
