package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// describeTxn renders the coordinator messages of idempotence and
// transactions (KIP-98, KIP-447, KIP-664); ok is false for other messages.
func describeTxn(msg any) (string, bool) {
	switch m := msg.(type) {
	case *kmsg.FindCoordinatorRequest:
		keys := m.CoordinatorKeys
		if m.Version < 4 {
			keys = []string{m.CoordinatorKey}
		}
		return fmt.Sprintf("FindCoordinator %s=%s", map[int8]string{0: "group", 1: "transactional_id"}[m.CoordinatorType], strings.Join(keys, ",")), true
	case *kmsg.FindCoordinatorResponse:
		if m.Version < 4 {
			return fmt.Sprintf("FindCoordinator node=%d%s", m.NodeID, errField(m.ErrorCode)), true
		}
		var parts []string
		for _, c := range m.Coordinators {
			parts = append(parts, fmt.Sprintf("%s node=%d%s", c.Key, c.NodeID, errField(c.ErrorCode)))
		}
		return "FindCoordinator " + strings.Join(parts, "; "), true
	case *kmsg.AddPartitionsToTxnRequest:
		if m.Version >= 4 {
			var parts []string
			for _, t := range m.Transactions {
				parts = append(parts, fmt.Sprintf("transactional_id=%s pid=%d epoch=%d verify_only=%v %s", t.TransactionalID, t.ProducerID, t.ProducerEpoch, t.VerifyOnly, txnTopics(t.Topics)))
			}
			return "AddPartitionsToTxn " + strings.Join(parts, "; "), true
		}
		var tps []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
			}
		}
		return fmt.Sprintf("AddPartitionsToTxn transactional_id=%s pid=%d epoch=%d %s", m.TransactionalID, m.ProducerID, m.ProducerEpoch, strings.Join(tps, ",")), true
	case *kmsg.AddPartitionsToTxnResponse:
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
		return "AddPartitionsToTxn " + strings.Join(parts, ", ") + errField(m.ErrorCode), true
	case *kmsg.AddOffsetsToTxnRequest:
		return fmt.Sprintf("AddOffsetsToTxn transactional_id=%s pid=%d epoch=%d group=%s", m.TransactionalID, m.ProducerID, m.ProducerEpoch, m.Group), true
	case *kmsg.AddOffsetsToTxnResponse:
		return "AddOffsetsToTxn " + ErrorName(m.ErrorCode), true
	case *kmsg.EndTxnResponse:
		if m.Version >= 5 && m.ProducerID >= 0 { // the bumped epoch (KIP-890 part 2)
			return fmt.Sprintf("EndTxn %s pid=%d epoch=%d", ErrorName(m.ErrorCode), m.ProducerID, m.ProducerEpoch), true
		}
		return "EndTxn " + ErrorName(m.ErrorCode), true
	case *kmsg.WriteTxnMarkersResponse:
		var parts []string
		for _, mk := range m.Markers {
			for _, t := range mk.Topics {
				for _, p := range t.Partitions {
					parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
				}
			}
		}
		return "WriteTxnMarkers " + strings.Join(parts, ", "), true
	case *kmsg.TxnOffsetCommitRequest:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d=%d", t.Topic, p.Partition, p.Offset))
			}
		}
		return fmt.Sprintf("TxnOffsetCommit transactional_id=%s group=%s pid=%d epoch=%d %s", m.TransactionalID, m.Group, m.ProducerID, m.ProducerEpoch, strings.Join(parts, " ")), true
	case *kmsg.TxnOffsetCommitResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d %s", t.Topic, p.Partition, ErrorName(p.ErrorCode)))
			}
		}
		return "TxnOffsetCommit " + strings.Join(parts, ", "), true
	case *kmsg.DescribeTransactionsResponse:
		var parts []string
		for _, s := range m.TransactionStates {
			parts = append(parts, fmt.Sprintf("%s state=%s pid=%d epoch=%d%s", s.TransactionalID, s.State, s.ProducerID, s.ProducerEpoch, errField(s.ErrorCode)))
		}
		return "DescribeTransactions " + strings.Join(parts, "; "), true
	case *kmsg.ListTransactionsResponse:
		var parts []string
		for _, s := range m.TransactionStates {
			parts = append(parts, fmt.Sprintf("%s=%s", s.TransactionalID, s.TransactionState))
		}
		return "ListTransactions " + strings.Join(parts, " ") + errField(m.ErrorCode), true
	}
	return describeOffsetFetch(msg)
}

func txnTopics(ts []kmsg.AddPartitionsToTxnRequestTransactionTopic) string {
	var tps []string
	for _, t := range ts {
		for _, p := range t.Partitions {
			tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
		}
	}
	return strings.Join(tps, ",")
}

// describeOffsetFetch renders OffsetFetch v0-7 (one group).
func describeOffsetFetch(msg any) (string, bool) {
	switch m := msg.(type) {
	case *kmsg.OffsetFetchRequest:
		var tps []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
			}
		}
		if m.Topics == nil {
			tps = []string{"all"}
		}
		stable := ""
		if m.RequireStable {
			stable = " require_stable"
		}
		return fmt.Sprintf("OffsetFetch group=%s %s%s", m.Group, strings.Join(tps, ","), stable), m.Version < 8
	case *kmsg.OffsetFetchResponse:
		var parts []string
		for _, t := range m.Topics {
			for _, p := range t.Partitions {
				parts = append(parts, fmt.Sprintf("%s-%d=%d%s", t.Topic, p.Partition, p.Offset, errField(p.ErrorCode)))
			}
		}
		return "OffsetFetch " + strings.Join(parts, " ") + errField(m.ErrorCode), m.Version < 8
	}
	return "", false
}
