package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListTransactions v0-1 (KIP-664; v1 filters by duration, KIP-994): the
// transactions this broker coordinates.
func init() {
	register(66, api{min: 0, max: 1, serve: handleTxn, acl: listTransactionsACL{}})
}

// listTransactionsACL: the answer lists only the transactional ids the
// principal may describe.
type listTransactionsACL struct{}

func (listTransactionsACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	return nil, func(resp kmsg.Response) {
		lr := resp.(*kmsg.ListTransactionsResponse)
		lr.TransactionStates = slices.DeleteFunc(lr.TransactionStates, func(s kmsg.ListTransactionsResponseTransactionState) bool {
			return !b.may(r, check{kmsg.ACLResourceTypeTransactionalId, s.TransactionalID, kmsg.ACLOperationDescribe})
		})
	}
}
