package broker

import "github.com/twmb/franz-go/pkg/kmsg"

// EndTxn v0-5 (KIP-98): commit or abort; v5 bumps the epoch
// (transaction version 2, KIP-890 part 2).
func init() {
	register(26, api{
		min: 0, max: 5, serve: handleTxn,
		txnID: routedBy(func(m *kmsg.EndTxnRequest) string { return m.TransactionalID }),
		acl:   endTxnACL{},
	})
}

// endTxnACL: WRITE on the transactional id.
type endTxnACL struct{}

func (endTxnACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	return b.refuseTxnID(r, r.Msg.(*kmsg.EndTxnRequest).TransactionalID), nil
}
