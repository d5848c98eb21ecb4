package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AddPartitionsToTxn v0-5 (KIP-98): a client adds partitions to its
// transaction (v0-3); v4+ is a partition leader's batch verifying or
// adding for its producers (KIP-890), which only brokers send.
func init() {
	register(24, api{
		min: 0, max: 5, serve: handleTxn,
		txnID: addPartitionsTxnID,
		acl:   addPartitionsToTxnACL{},
	})
}

// addPartitionsTxnID routes a client's AddPartitionsToTxn by its
// transactional id; a broker's batch (v4+) names many, each answered by
// the coordinator that has it (coordinator.Transactions.MarkForeign).
func addPartitionsTxnID(req kmsg.Request) (string, bool) {
	m := req.(*kmsg.AddPartitionsToTxnRequest)
	return m.TransactionalID, m.Version < 4
}

// addPartitionsToTxnACL: v4+ needs CLUSTER_ACTION (KIP-890: broker to
// coordinator); a client's needs WRITE on its transactional id, then on
// each topic (authorizeAddPartitions).
type addPartitionsToTxnACL struct{}

func (addPartitionsToTxnACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.AddPartitionsToTxnRequest)
	if q.Version >= 4 {
		return onCluster{kmsg.ACLOperationClusterAction}.authorize(b, r)
	}
	if deny := b.refuseTxnID(r, q.TransactionalID); deny != nil {
		return deny, nil
	}
	return b.authorizeAddPartitions(r, q), nil
}

// authorizeAddPartitions (v0-3, a client's): each topic needs WRITE, and
// an internal topic is never added. One refused topic fails the request:
// the others are answered OPERATION_NOT_ATTEMPTED, so that the client
// adds none of them (Kafka's handleAddPartitionToTxnRequest).
func (b *Broker) authorizeAddPartitions(r *Request, q *kmsg.AddPartitionsToTxnRequest) kmsg.Response {
	refused := func(t kmsg.AddPartitionsToTxnRequestTopic) bool {
		return isInternalTopic(t.Topic) || !b.may(r, check{kmsg.ACLResourceTypeTopic, t.Topic, kmsg.ACLOperationWrite})
	}
	if !slices.ContainsFunc(q.Topics, refused) {
		return nil
	}
	resp := q.ResponseKind().(*kmsg.AddPartitionsToTxnResponse)
	for _, t := range q.Topics {
		code := kerr.OperationNotAttempted.Code
		if refused(t) {
			code = kerr.TopicAuthorizationFailed.Code
		}
		rt := kmsg.NewAddPartitionsToTxnResponseTopic()
		rt.Topic = t.Topic
		for _, p := range t.Partitions {
			rt.Partitions = append(rt.Partitions, kmsg.AddPartitionsToTxnResponseTopicPartition{Partition: p, ErrorCode: code})
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
