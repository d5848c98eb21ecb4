package broker

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/share"
)

// FindCoordinator v0-6. v1 adds the key type (0 group, 1 transaction,
// 2 share coordinator: the leader of the __share_group_state partition
// the key hashes to, asked by brokers with CLUSTER_ACTION),
// v4 looks up a batch of keys (KIP-699). A group's coordinator is the
// leader of partition Utils.abs(groupId.hashCode()) %
// offsets.topic.num.partitions of __consumer_offsets, which is created on
// the first lookup. A transactional id's coordinator is found the same way
// in __transaction_state. In a cluster any broker answers from the
// metadata; the leader may have moved by the time the client asks it,
// and then it answers NOT_COORDINATOR and the client looks again.
func init() {
	register(10, api{
		min: 0, max: 6, serve: handleFindCoordinator,
		acl: findCoordinatorACL{}, addresses: coordinatorAddresses,
	})
}

// coordinatorAddresses are the addresses of the coordinators found: the
// one before v4, each key's from v4 (KIP-699).
func coordinatorAddresses(resp kmsg.Response, set func(id int32, host *string, port *int32)) {
	r, ok := resp.(*kmsg.FindCoordinatorResponse)
	if !ok {
		return
	}
	if r.NodeID >= 0 {
		set(r.NodeID, &r.Host, &r.Port)
	}
	for i := range r.Coordinators {
		if c := &r.Coordinators[i]; c.NodeID >= 0 {
			set(c.NodeID, &c.Host, &c.Port)
		}
	}
}

func handleFindCoordinator(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.FindCoordinatorRequest)
	resp := req.ResponseKind().(*kmsg.FindCoordinatorResponse)
	keys := req.CoordinatorKeys
	if req.Version < 4 {
		keys = []string{req.CoordinatorKey}
	}
	for _, key := range keys {
		resp.Coordinators = append(resp.Coordinators, b.findCoordinator(key, req.CoordinatorType))
	}
	if req.Version < 4 {
		c := resp.Coordinators[0]
		resp.Coordinators = nil
		resp.ErrorCode, resp.ErrorMessage = c.ErrorCode, c.ErrorMessage
		resp.NodeID, resp.Host, resp.Port = c.NodeID, c.Host, c.Port
	}
	return resp
}

func (b *Broker) findCoordinator(key string, typ int8) kmsg.FindCoordinatorResponseCoordinator {
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Port = key, -1, -1
	fail := func(e *kerr.Error) kmsg.FindCoordinatorResponseCoordinator {
		c.ErrorCode = e.Code
		msg := e.Message
		c.ErrorMessage = &msg
		return c
	}
	var topic string
	var p int32
	switch typ {
	case 0:
		topic, p = OffsetsTopic, b.groups.PartitionFor(key)
	case 1:
		topic, p = TransactionStateTopic, b.txn.PartitionFor(key)
	case 2: // KIP-932: a share coordinator key, "group:topicId:partition"
		n, err := b.image.internalTopic(share.StateTopic)
		if err != nil {
			return fail(kerr.CoordinatorNotAvailable)
		}
		topic, p = share.StateTopic, group.PartitionFor(key, n)
	default:
		return fail(kerr.InvalidRequest)
	}
	if _, err := b.image.internalTopic(topic); err != nil {
		if !errors.Is(err, errInternalCreating) {
			b.cfg.Logf("creating %s: %v", topic, err)
		}
		return fail(kerr.CoordinatorNotAvailable)
	}
	id, host, port, ok := b.internalLeader(topic, p)
	if !ok {
		return fail(kerr.CoordinatorNotAvailable)
	}
	c.NodeID, c.Host, c.Port = id, host, port
	return c
}

// GroupCoordinatorPartition is the __consumer_offsets partition whose
// leader coordinates the group.
func (b *Broker) GroupCoordinatorPartition(groupID string) int32 {
	return b.groups.PartitionFor(groupID)
}

// findCoordinatorACL: DESCRIBE on each group or transactional id asked
// for (v4+ answers each key alone, KIP-699; before, the one key refused
// answers no node); share coordinator keys are for brokers only
// (CLUSTER_ACTION).
type findCoordinatorACL struct{}

func (findCoordinatorACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.FindCoordinatorRequest)
	typ, e := kmsg.ACLResourceTypeGroup, kerr.GroupAuthorizationFailed
	if q.CoordinatorType == 1 {
		typ, e = kmsg.ACLResourceTypeTransactionalId, kerr.TransactionalIDAuthorizationFailed
	} else if q.CoordinatorType == 2 {
		return onCluster{kmsg.ACLOperationClusterAction}.authorize(b, r)
	}
	if q.Version >= 4 {
		return partial(r, &q.CoordinatorKeys, b.ofResource(r, typ, kmsg.ACLOperationDescribe, e), addCoordinator)
	}
	if !b.may(r, check{typ, q.CoordinatorKey, kmsg.ACLOperationDescribe}) {
		resp := q.ResponseKind().(*kmsg.FindCoordinatorResponse)
		resp.ErrorCode, resp.NodeID, resp.Port = e.Code, -1, -1
		return resp, nil
	}
	return nil, nil
}
