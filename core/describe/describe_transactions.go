package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeTransactions (key 65, KIP-664): the answer's states.
func init() {
	describes(describeTransactionsResponse)
}

func describeTransactionsResponse(m *kmsg.DescribeTransactionsResponse) string {
	var parts []string
	for _, s := range m.TransactionStates {
		parts = append(parts, fmt.Sprintf("%s state=%s pid=%d epoch=%d%s", s.TransactionalID, s.State, s.ProducerID, s.ProducerEpoch, errField(s.ErrorCode)))
	}
	return "DescribeTransactions " + strings.Join(parts, "; ")
}
