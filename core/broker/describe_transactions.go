package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeTransactions v0 (KIP-664): the coordinator's state of each
// transactional id asked for.
func init() {
	register(65, api{min: 0, max: 0, serve: handleTxn, acl: describeTransactionsACL{}})
}

// describeTransactionsACL: DESCRIBE on each transactional id, a refused
// one answered alone; the answer lists only the partitions of topics the
// principal may describe.
type describeTransactionsACL struct{}

func (describeTransactionsACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.DescribeTransactionsRequest)
	deny, trim := partial(r, &q.TransactionalIDs, b.ofResource(r, kmsg.ACLResourceTypeTransactionalId, kmsg.ACLOperationDescribe, kerr.TransactionalIDAuthorizationFailed),
		addPart("TransactionStates", "TransactionalID", ""))
	if deny != nil {
		return deny, nil
	}
	return nil, both(trim, b.describableTxnTopics(r))
}

// describableTxnTopics leaves in a DescribeTransactions answer only the
// partitions of topics the principal may describe.
func (b *Broker) describableTxnTopics(r *Request) func(kmsg.Response) {
	return func(resp kmsg.Response) {
		dr := resp.(*kmsg.DescribeTransactionsResponse)
		for i := range dr.TransactionStates {
			s := &dr.TransactionStates[i]
			s.Topics = slices.DeleteFunc(s.Topics, func(t kmsg.DescribeTransactionsResponseTransactionStateTopic) bool {
				return !b.may(r, check{kmsg.ACLResourceTypeTopic, t.Topic, kmsg.ACLOperationDescribe})
			})
		}
	}
}
