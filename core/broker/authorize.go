package broker

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"
)

// Authorization (KIP-11): with Config.Authorizer set (authorizer.class.name),
// every request of a client is checked against the ACLs (acls.go) before
// its handler runs, with the resources and operations Kafka's KafkaApis
// checks, and refused with Kafka's error codes: TOPIC_, GROUP_,
// TRANSACTIONAL_ID_ and CLUSTER_AUTHORIZATION_FAILED. Metadata lists only
// the topics the principal may describe, and ListGroups only such groups.
//
// Invariants: a request without a principal (a peer broker, the
// simulator) is not checked; ApiVersions and the SASL requests never are.
// A request naming several topics or groups of which one is refused is
// refused whole (Kafka answers the others), except Metadata and Produce,
// answered per topic: the handler gets the request without the refused
// topics, and a trim (b.trims) adds them, refused, to its answer whenever
// it is delivered.

type check struct {
	rtype kmsg.ACLResourceType
	name  string
	op    kmsg.ACLOperation
}

// may reports whether the request's principal passes the check.
func (b *Broker) may(r *Request, c check) bool {
	host := strings.TrimPrefix(r.Host, "/")
	return b.cfg.Authorizer.Authorize(b.acls(), r.Principal, host, int8(c.op), int8(c.rtype), c.name)
}

func (b *Broker) mayAll(r *Request, cs []check) bool {
	for _, c := range cs {
		if !b.may(r, c) {
			return false
		}
	}
	return true
}

func topicChecks(op kmsg.ACLOperation, names ...string) []check {
	out := make([]check, len(names))
	for i, n := range names {
		out[i] = check{kmsg.ACLResourceTypeTopic, n, op}
	}
	return out
}

type trimKey struct {
	conn uint64
	corr int32
}

// trim completes r's answer with fn when it is delivered.
func (b *Broker) trim(r *Request, fn func(kmsg.Response)) {
	b.trims[trimKey{r.Conn, r.Header.CorrelationID}] = fn
}

// dropTrims forgets the trims of a closed connection.
func (b *Broker) dropTrims(conn uint64) {
	for k := range b.trims {
		if k.conn == conn {
			delete(b.trims, k)
		}
	}
}

// authorize returns the answer refusing r, or nil to let the handler run.
func (b *Broker) authorize(r *Request) kmsg.Response {
	deny, trim := b.authorizeRequest(r)
	if deny == nil && trim != nil {
		b.trim(r, trim)
	}
	return deny
}

// authorizeRequest returns the answer refusing r, or nil and perhaps a
// trim of the handler's answer.
func (b *Broker) authorizeRequest(r *Request) (deny kmsg.Response, trim func(kmsg.Response)) {
	if b.cfg.Authorizer == nil || r.Principal == "" {
		return nil, nil
	}
	refuse := func(e *kerr.Error) (kmsg.Response, func(kmsg.Response)) {
		return wire.ErrorResponse(r.Msg, e.Code), nil
	}
	group := func(op kmsg.ACLOperation, ids ...string) (kmsg.Response, func(kmsg.Response)) {
		for _, id := range ids {
			if !b.may(r, check{kmsg.ACLResourceTypeGroup, id, op}) {
				return refuse(kerr.GroupAuthorizationFailed)
			}
		}
		return nil, nil
	}
	txnID := func(id string) (kmsg.Response, func(kmsg.Response)) {
		if !b.may(r, check{kmsg.ACLResourceTypeTransactionalId, id, kmsg.ACLOperationWrite}) {
			return refuse(kerr.TransactionalIDAuthorizationFailed)
		}
		return nil, nil
	}
	topics := func(op kmsg.ACLOperation, names ...string) (kmsg.Response, func(kmsg.Response)) {
		if !b.mayAll(r, topicChecks(op, names...)) {
			return refuse(kerr.TopicAuthorizationFailed)
		}
		return nil, nil
	}
	clusterOp := func(op kmsg.ACLOperation) (kmsg.Response, func(kmsg.Response)) {
		if !b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, op}) {
			return refuse(kerr.ClusterAuthorizationFailed)
		}
		return nil, nil
	}
	switch q := r.Msg.(type) {
	case *kmsg.ApiVersionsRequest, *kmsg.SASLHandshakeRequest, *kmsg.SASLAuthenticateRequest:
		return nil, nil
	case *kmsg.MetadataRequest:
		return nil, b.filterMetadata(r)
	case *kmsg.ProduceRequest:
		if q.TransactionID != nil {
			if deny, _ := txnID(*q.TransactionID); deny != nil {
				return produceRefused(q, kerr.TransactionalIDAuthorizationFailed), nil
			}
		}
		var kept, refused []kmsg.ProduceRequestTopic
		for _, t := range q.Topics {
			if b.may(r, check{kmsg.ACLResourceTypeTopic, b.nameOf(t.Topic, t.TopicID), kmsg.ACLOperationWrite}) {
				kept = append(kept, t)
			} else {
				refused = append(refused, t)
			}
		}
		switch {
		case len(refused) == 0:
		case len(kept) == 0:
			return produceRefused(q, kerr.TopicAuthorizationFailed), nil
		case q.Acks == 0:
			q.Topics = kept // no answer to complete
		default:
			q.Topics = kept
			out := *q
			out.Topics = refused
			return nil, func(resp kmsg.Response) {
				pr := resp.(*kmsg.ProduceResponse)
				pr.Topics = append(pr.Topics, produceRefused(&out, kerr.TopicAuthorizationFailed).(*kmsg.ProduceResponse).Topics...)
			}
		}
	case *kmsg.FetchRequest:
		if fetchReplica(q) >= 0 {
			return clusterOp(kmsg.ACLOperationClusterAction)
		}
		var names []string
		for _, t := range q.Topics {
			names = append(names, b.nameOf(t.Topic, t.TopicID))
		}
		if !b.mayAll(r, topicChecks(kmsg.ACLOperationRead, names...)) {
			return fetchRefused(q), nil
		}
	case *kmsg.ListOffsetsRequest:
		var names []string
		for _, t := range q.Topics {
			names = append(names, t.Topic)
		}
		return topics(kmsg.ACLOperationDescribe, names...)
	case *kmsg.CreateTopicsRequest:
		if b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationCreate}) {
			return nil, nil
		}
		var names []string
		for _, t := range q.Topics {
			names = append(names, t.Topic)
		}
		return topics(kmsg.ACLOperationCreate, names...)
	case *kmsg.DeleteTopicsRequest:
		var names []string
		for _, t := range wire.DeleteTopicsTargets(q) {
			names = append(names, b.nameOf(derefString(t.Topic), t.TopicID))
		}
		return topics(kmsg.ACLOperationDelete, names...)
	case *kmsg.CreatePartitionsRequest:
		var names []string
		for _, t := range q.Topics {
			names = append(names, t.Topic)
		}
		return topics(kmsg.ACLOperationAlter, names...)
	case *kmsg.IncrementalAlterConfigsRequest:
		for _, res := range q.Resources {
			if deny := b.configCheck(r, res.ResourceType, res.ResourceName, kmsg.ACLOperationAlterConfigs); deny != nil {
				return wire.ErrorResponse(q, deny.Code), nil
			}
		}
	case *kmsg.DescribeConfigsRequest:
		for _, res := range q.Resources {
			if deny := b.configCheck(r, res.ResourceType, res.ResourceName, kmsg.ACLOperationDescribeConfigs); deny != nil {
				return wire.ErrorResponse(q, deny.Code), nil
			}
		}
	case *kmsg.FindCoordinatorRequest:
		keys := q.CoordinatorKeys
		if q.Version < 4 {
			keys = []string{q.CoordinatorKey}
		}
		for _, k := range keys {
			switch {
			case q.CoordinatorType == 0 && !b.may(r, check{kmsg.ACLResourceTypeGroup, k, kmsg.ACLOperationDescribe}):
				return coordinatorRefused(q, keys, kerr.GroupAuthorizationFailed), nil
			case q.CoordinatorType == 1 && !b.may(r, check{kmsg.ACLResourceTypeTransactionalId, k, kmsg.ACLOperationDescribe}):
				return coordinatorRefused(q, keys, kerr.TransactionalIDAuthorizationFailed), nil
			}
		}
	case *kmsg.JoinGroupRequest:
		return group(kmsg.ACLOperationRead, q.Group)
	case *kmsg.SyncGroupRequest:
		return group(kmsg.ACLOperationRead, q.Group)
	case *kmsg.HeartbeatRequest:
		return group(kmsg.ACLOperationRead, q.Group)
	case *kmsg.LeaveGroupRequest:
		return group(kmsg.ACLOperationRead, q.Group)
	case *kmsg.ConsumerGroupHeartbeatRequest:
		return group(kmsg.ACLOperationRead, q.Group)
	case *kmsg.OffsetCommitRequest:
		if deny, _ := group(kmsg.ACLOperationRead, q.Group); deny != nil {
			return deny, nil
		}
		var names []string
		for _, t := range q.Topics {
			names = append(names, t.Topic)
		}
		return topics(kmsg.ACLOperationRead, names...)
	case *kmsg.OffsetFetchRequest:
		ids := []string{q.Group}
		if q.Version >= 8 {
			ids = ids[:0]
			for _, g := range q.Groups {
				ids = append(ids, g.Group)
			}
		}
		return group(kmsg.ACLOperationDescribe, ids...)
	case *kmsg.DescribeGroupsRequest:
		return group(kmsg.ACLOperationDescribe, q.Groups...)
	case *kmsg.DeleteGroupsRequest:
		return group(kmsg.ACLOperationDelete, q.Groups...)
	case *kmsg.OffsetDeleteRequest:
		return group(kmsg.ACLOperationDelete, q.Group)
	case *kmsg.ListGroupsRequest:
		return nil, func(resp kmsg.Response) {
			lr := resp.(*kmsg.ListGroupsResponse)
			kept := lr.Groups[:0]
			for _, g := range lr.Groups {
				if b.may(r, check{kmsg.ACLResourceTypeGroup, g.Group, kmsg.ACLOperationDescribe}) {
					kept = append(kept, g)
				}
			}
			lr.Groups = kept
		}
	case *kmsg.InitProducerIDRequest:
		if q.TransactionalID != nil {
			return txnID(*q.TransactionalID)
		}
		if b.cfg.Authorizer.MayAny(b.acls(), r.Principal, strings.TrimPrefix(r.Host, "/"), int8(kmsg.ACLOperationWrite), int8(kmsg.ACLResourceTypeTopic)) {
			return nil, nil // KIP-679: WRITE on any topic allows an idempotent producer
		}
		return clusterOp(kmsg.ACLOperationIdempotentWrite)
	case *kmsg.AddPartitionsToTxnRequest:
		if q.Version >= 4 {
			return clusterOp(kmsg.ACLOperationClusterAction) // KIP-890: broker to coordinator
		}
		return txnID(q.TransactionalID)
	case *kmsg.AddOffsetsToTxnRequest:
		if deny, _ := txnID(q.TransactionalID); deny != nil {
			return deny, nil
		}
		return group(kmsg.ACLOperationRead, q.Group)
	case *kmsg.EndTxnRequest:
		return txnID(q.TransactionalID)
	case *kmsg.TxnOffsetCommitRequest:
		if deny, _ := txnID(q.TransactionalID); deny != nil {
			return deny, nil
		}
		return group(kmsg.ACLOperationRead, q.Group)
	case *kmsg.DescribeTransactionsRequest, *kmsg.ListTransactionsRequest, *kmsg.DescribeProducersRequest:
		return clusterOp(kmsg.ACLOperationDescribe)
	case *kmsg.DescribeClusterRequest, *kmsg.DescribeACLsRequest, *kmsg.DescribeUserSCRAMCredentialsRequest:
		return clusterOp(kmsg.ACLOperationDescribe)
	case *kmsg.CreateACLsRequest, *kmsg.DeleteACLsRequest, *kmsg.AlterUserSCRAMCredentialsRequest, *kmsg.UpdateFeaturesRequest:
		return clusterOp(kmsg.ACLOperationAlter)
	case *kmsg.DeleteRecordsRequest:
		var names []string
		for _, t := range q.Topics {
			names = append(names, t.Topic)
		}
		return topics(kmsg.ACLOperationDelete, names...)
	default:
		// What only brokers send to each other, and what is not mapped
		// above, needs CLUSTER_ACTION.
		return clusterOp(kmsg.ACLOperationClusterAction)
	}
	return nil, nil
}

// configCheck checks a config resource: a topic's on the topic, the
// broker's on the cluster.
func (b *Broker) configCheck(r *Request, typ kmsg.ConfigResourceType, name string, op kmsg.ACLOperation) *kerr.Error {
	switch {
	case typ == kmsg.ConfigResourceTypeTopic && !b.may(r, check{kmsg.ACLResourceTypeTopic, name, op}):
		return kerr.TopicAuthorizationFailed
	case typ != kmsg.ConfigResourceTypeTopic && !b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, op}):
		return kerr.ClusterAuthorizationFailed
	}
	return nil
}

// filterMetadata lets a Metadata request ask only for topics the
// principal may describe, and answers the others
// TOPIC_AUTHORIZATION_FAILED; of all topics it lists the describable ones.
func (b *Broker) filterMetadata(r *Request) func(kmsg.Response) {
	q := r.Msg.(*kmsg.MetadataRequest)
	var refused []kmsg.MetadataRequestTopic
	if len(q.Topics) > 0 {
		kept := q.Topics[:0:0]
		mayCreate := b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationCreate})
		for _, t := range q.Topics {
			name := b.nameOf(derefString(t.Topic), t.TopicID)
			// A topic that would be auto-created needs CREATE on the
			// cluster or the topic (Kafka's handleTopicMetadataRequest).
			creates := name != "" && !b.topicExists(name) && !mayCreate &&
				!b.may(r, check{kmsg.ACLResourceTypeTopic, name, kmsg.ACLOperationCreate})
			if !creates && b.may(r, check{kmsg.ACLResourceTypeTopic, name, kmsg.ACLOperationDescribe}) {
				kept = append(kept, t)
			} else {
				refused = append(refused, t)
			}
		}
		q.Topics = kept
		if len(kept) == 0 && q.Version == 0 {
			q.Topics = nil // v0: an empty list would ask for every topic
		}
	}
	return func(resp kmsg.Response) {
		mr := resp.(*kmsg.MetadataResponse)
		kept := mr.Topics[:0]
		for _, t := range mr.Topics {
			if b.may(r, check{kmsg.ACLResourceTypeTopic, b.nameOf(derefString(t.Topic), t.TopicID), kmsg.ACLOperationDescribe}) {
				kept = append(kept, t)
			}
		}
		mr.Topics = kept
		for _, t := range refused {
			mt := kmsg.NewMetadataResponseTopic()
			mt.Topic, mt.TopicID, mt.ErrorCode = t.Topic, t.TopicID, kerr.TopicAuthorizationFailed.Code
			mr.Topics = append(mr.Topics, mt)
		}
	}
}

// topicExists reports whether the metadata has the topic.
func (b *Broker) topicExists(name string) bool {
	if b.cl != nil {
		return b.cl.image.Topics[name] != nil
	}
	return b.topics[name] != nil
}

// nameOf names a topic given by name or id (KIP-516); an unknown id
// names no topic, which only a binding on "*" or "" matches.
func (b *Broker) nameOf(name string, id [16]byte) string {
	if name != "" {
		return name
	}
	if t := b.lookup("", id); t != nil {
		return t.Name
	}
	if b.cl != nil {
		if it := b.cl.image.TopicByID(id); it != nil {
			return it.Name
		}
	}
	return ""
}

func derefString(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// produceRefused answers every partition of a Produce with code.
func produceRefused(q *kmsg.ProduceRequest, code *kerr.Error) kmsg.Response {
	resp := q.ResponseKind().(*kmsg.ProduceResponse)
	for _, t := range q.Topics {
		rt := kmsg.NewProduceResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewProduceResponseTopicPartition()
			rp.Partition, rp.ErrorCode = p.Partition, code.Code
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// coordinatorRefused answers every key of a FindCoordinator with code.
func coordinatorRefused(q *kmsg.FindCoordinatorRequest, keys []string, code *kerr.Error) kmsg.Response {
	resp := q.ResponseKind().(*kmsg.FindCoordinatorResponse)
	resp.ErrorCode, resp.NodeID, resp.Port = code.Code, -1, -1
	if q.Version >= 4 {
		resp.ErrorCode = 0
		for _, k := range keys {
			c := kmsg.NewFindCoordinatorResponseCoordinator()
			c.Key, c.NodeID, c.Port, c.ErrorCode = k, -1, -1, code.Code
			resp.Coordinators = append(resp.Coordinators, c)
		}
	}
	return resp
}

// fetchRefused answers every partition of a Fetch with
// TOPIC_AUTHORIZATION_FAILED.
func fetchRefused(q *kmsg.FetchRequest) kmsg.Response {
	resp := q.ResponseKind().(*kmsg.FetchResponse)
	for _, t := range q.Topics {
		rt := kmsg.NewFetchResponseTopic()
		rt.Topic, rt.TopicID = t.Topic, t.TopicID
		for _, p := range t.Partitions {
			rp := kmsg.NewFetchResponseTopicPartition()
			rp.Partition, rp.ErrorCode, rp.HighWatermark, rp.LastStableOffset = p.Partition, kerr.TopicAuthorizationFailed.Code, -1, -1
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}
