package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AddOffsetsToTxn v0-4 (KIP-98): a producer puts its group's
// __consumer_offsets partition in its transaction before TxnOffsetCommit.
func init() {
	register(25, api{
		min: 0, max: 4, serve: handleTxn,
		txnID: routedBy(func(m *kmsg.AddOffsetsToTxnRequest) string { return m.TransactionalID }),
		acl:   addOffsetsToTxnACL{},
	})
}

// addOffsetsToTxnACL: WRITE on the transactional id, then READ on the
// group.
type addOffsetsToTxnACL struct{}

func (addOffsetsToTxnACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.AddOffsetsToTxnRequest)
	if deny := b.refuseTxnID(r, q.TransactionalID); deny != nil {
		return deny, nil
	}
	return b.refuseUnless(r, check{kmsg.ACLResourceTypeGroup, q.Group, kmsg.ACLOperationRead}, kerr.GroupAuthorizationFailed), nil
}
