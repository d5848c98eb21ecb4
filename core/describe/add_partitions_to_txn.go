package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// AddPartitionsToTxn (key 24, KIP-98): a client's partitions, or from
// v4 a broker's batch of transactions (KIP-890).
func init() {
	describes(addPartitionsToTxnRequest)
	describes(addPartitionsToTxnResponse)
}

func addPartitionsToTxnRequest(m *kmsg.AddPartitionsToTxnRequest) string {
	if m.Version >= 4 {
		var parts []string
		for _, t := range m.Transactions {
			parts = append(parts, fmt.Sprintf("transactional_id=%s pid=%d epoch=%d verify_only=%v %s", t.TransactionalID, t.ProducerID, t.ProducerEpoch, t.VerifyOnly, txnTopics(t.Topics)))
		}
		return "AddPartitionsToTxn " + strings.Join(parts, "; ")
	}
	var tps []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
		}
	}
	return fmt.Sprintf("AddPartitionsToTxn transactional_id=%s pid=%d epoch=%d %s", m.TransactionalID, m.ProducerID, m.ProducerEpoch, strings.Join(tps, ","))
}

func addPartitionsToTxnResponse(m *kmsg.AddPartitionsToTxnResponse) string {
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
		}
	}
	for _, tx := range m.Transactions {
		for _, t := range tx.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s %s-%d %s", tx.TransactionalID, t.Topic, p.Partition, ErrorName(p.ErrorCode)))
			}
		}
	}
	return "AddPartitionsToTxn " + strings.Join(parts, ", ") + errField(m.ErrorCode)
}

// txnTopics lists a batched transaction's partitions as t-0,t-1.
func txnTopics(ts []kmsg.AddPartitionsToTxnRequestTransactionTopic) string {
	var tps []string
	for _, t := range ts {
		for _, p := range t.Partitions {
			tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
		}
	}
	return strings.Join(tps, ",")
}
