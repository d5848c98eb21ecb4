package broker

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// InitProducerId v0-5 for idempotent producers (KIP-98): a fresh producer id
// with epoch 0. Ids are handed out from blocks whose end is persisted before
// any id in them is used, so an id is never reused after a restart (as
// Kafka's ProducerIdManager allocates blocks, KIP-730). With a transactional
// id the request goes to the transaction coordinator (core/txn).
func init() {
	register(22, api{
		min: 0, max: 5, serve: handleInitProducerID,
		txnID: initProducerTxnID,
		acl:   initProducerIDACL{},
	})
}

// initProducerTxnID routes a transactional producer's InitProducerId to
// the coordinator of its transactional id; an idempotent producer's has
// none.
func initProducerTxnID(req kmsg.Request) (string, bool) {
	m := req.(*kmsg.InitProducerIDRequest)
	return derefString(m.TransactionalID), m.TransactionalID != nil
}

const producerIDBlock = 1000

func handleInitProducerID(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.InitProducerIDRequest)
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	if req.TransactionalID != nil {
		return handleTxn(b, r) // the transaction coordinator, txn_coordinator.go
	}
	return b.image.initProducerID(*r, resp)
}

// nextProducerID hands out the next id of the block in use, taking a new
// block first when there is none: after a start there is none, so ids of
// a block an earlier run may have used are never handed out again.
func (b *Broker) nextProducerID() (int64, error) {
	ids := &b.producerIDs
	if ids.next >= ids.end {
		start := b.meta.NextProducer
		b.meta.NextProducer += producerIDBlock
		if err := b.saveMetadata(); err != nil {
			b.meta.NextProducer = start
			return 0, err
		}
		ids.next, ids.end = start, b.meta.NextProducer
	}
	id := ids.next
	ids.next++
	return id, nil
}

// initProducerIDACL: a transactional producer needs WRITE on its
// transactional id; an idempotent one WRITE on any topic (KIP-679) or
// IDEMPOTENT_WRITE on the cluster.
type initProducerIDACL struct{}

func (initProducerIDACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.InitProducerIDRequest)
	if q.TransactionalID != nil {
		return b.refuseTxnID(r, *q.TransactionalID), nil
	}
	if b.cfg.Authorizer.MayAny(b.image.acls(), r.Principal, strings.TrimPrefix(r.Host, "/"), int8(kmsg.ACLOperationWrite), int8(kmsg.ACLResourceTypeTopic)) {
		return nil, nil
	}
	return onCluster{kmsg.ACLOperationIdempotentWrite}.authorize(b, r)
}
