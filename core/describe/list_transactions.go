package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListTransactions (key 66, KIP-664): the answer's states.
func init() {
	describes(listTransactionsResponse)
}

func listTransactionsResponse(m *kmsg.ListTransactionsResponse) string {
	var parts []string
	for _, s := range m.TransactionStates {
		parts = append(parts, fmt.Sprintf("%s=%s", s.TransactionalID, s.TransactionState))
	}
	return "ListTransactions " + strings.Join(parts, " ") + errField(m.ErrorCode)
}
