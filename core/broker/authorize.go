//go:build !js

package broker

import (
	"slices"
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
// TRANSACTIONAL_ID_ and CLUSTER_AUTHORIZATION_FAILED. Metadata, ListGroups,
// ListTransactions and OffsetFetch of all topics list only what the
// principal may describe.
//
// Invariants:
//   - A request without a principal (a peer broker, the simulator) is not
//     checked; ApiVersions, the SASL requests and DescribeCluster never are.
//   - A request naming several topics, groups, transactional ids, config
//     resources or coordinator keys is answered per part, as KafkaApis
//     does: the handler gets the request without the refused parts, and a
//     trim (b.trims) adds them, each with Kafka's error for it, to its
//     answer whenever it is delivered (authorize_parts.go: one split over
//     any request list, one adder naming the refused item in any answer
//     list, and per API only which list, which check and which error).
//     With no part left the handler does not run and the answer is the
//     refused parts alone.
//   - What Kafka checks once for the request stays whole: the group of
//     OffsetCommit, OffsetDelete, TxnOffsetCommit and OffsetFetch before
//     v8, the transactional id, every cluster-level check (ElectLeaders,
//     reassignments, DescribeLogDirs, ACLs, quotas, SCRAM), a follower's
//     CLUSTER_ACTION (refused, every partition of its Fetch says
//     TOPIC_AUTHORIZATION_FAILED), and AddPartitionsToTxn, where one
//     refused topic fails all (the others OPERATION_NOT_ATTEMPTED).
//   - A topic the principal may not use is TOPIC_AUTHORIZATION_FAILED
//     whether it exists or not, so that no refusal tells a topic exists;
//     a topic id no topic has is left to the handler, which answers
//     UNKNOWN_TOPIC_ID (Kafka resolves ids first: ids are not secret), and
//     DeleteTopics by id does not name a topic the principal may not
//     describe.
//   - The js builds (browser, Workers) carry no principal and leave the
//     authorizer out (authorize_js.go).

// may reports whether the request's principal passes the check.
func (b *Broker) may(r *Request, c check) bool {
	host := strings.TrimPrefix(r.Host, "/")
	return b.cfg.Authorizer.Authorize(b.acls(), r.Principal, host, int8(c.op), int8(c.rtype), c.name)
}

// allows reports whether r may pass c: without an authorizer or a
// principal every check passes (authorized_ops.go).
func (b *Broker) allows(r *Request, c check) bool {
	return b.cfg.Authorizer == nil || r.Principal == "" || b.may(r, c)
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
	group := func(op kmsg.ACLOperation, id string) (kmsg.Response, func(kmsg.Response)) {
		if !b.may(r, check{kmsg.ACLResourceTypeGroup, id, op}) {
			return refuse(kerr.GroupAuthorizationFailed)
		}
		return nil, nil
	}
	txnID := func(id string) (kmsg.Response, func(kmsg.Response)) {
		if !b.may(r, check{kmsg.ACLResourceTypeTransactionalId, id, kmsg.ACLOperationWrite}) {
			return refuse(kerr.TransactionalIDAuthorizationFailed)
		}
		return nil, nil
	}
	clusterOp := func(op kmsg.ACLOperation) (kmsg.Response, func(kmsg.Response)) {
		if !b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, op}) {
			return refuse(kerr.ClusterAuthorizationFailed)
		}
		return nil, nil
	}
	groups := func(op kmsg.ACLOperation) refuser {
		return b.ofResource(r, kmsg.ACLResourceTypeGroup, op, kerr.GroupAuthorizationFailed)
	}
	switch q := r.Msg.(type) {
	case *kmsg.ApiVersionsRequest, *kmsg.SASLHandshakeRequest, *kmsg.SASLAuthenticateRequest, *kmsg.DescribeClusterRequest:
		return nil, nil // DescribeCluster: Kafka checks only for the authorized operations
	case *kmsg.MetadataRequest:
		return nil, b.filterMetadata(r)
	case *kmsg.ProduceRequest:
		if q.TransactionID != nil {
			if deny, _ := txnID(*q.TransactionID); deny != nil {
				return answered(r, func(resp kmsg.Response) {
					for _, t := range q.Topics {
						addTopics(resp, t, kerr.TransactionalIDAuthorizationFailed)
					}
				}), nil
			}
		}
		deny, trim = partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationWrite), addTopics)
		if q.Acks == 0 {
			trim = nil // no answer to complete
		}
		return deny, trim
	case *kmsg.FetchRequest:
		if fetchReplica(q) >= 0 {
			if b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationClusterAction}) {
				return nil, nil
			}
			// A follower without CLUSTER_ACTION: every partition refused.
			return answered(r, func(resp kmsg.Response) {
				for _, t := range q.Topics {
					addTopics(resp, t, kerr.TopicAuthorizationFailed)
				}
			}), nil
		}
		return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationRead), addTopics)
	case *kmsg.ListOffsetsRequest:
		return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationDescribe), addTopics)
	case *kmsg.OffsetForLeaderEpochRequest:
		if b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationClusterAction}) {
			return nil, nil // KIP-320: a follower's, or a consumer with CLUSTER_ACTION
		}
		return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationDescribe), addTopics)
	case *kmsg.CreateTopicsRequest:
		return b.authorizeCreateTopics(r, q)
	case *kmsg.DeleteTopicsRequest:
		return b.authorizeDeleteTopics(r, q)
	case *kmsg.CreatePartitionsRequest:
		return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationAlter), addPart("Topics", "", "The topic authorization is failed."))
	case *kmsg.DeleteRecordsRequest:
		return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationDelete), addTopics)
	case *kmsg.DescribeProducersRequest:
		return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationRead), addTopics)
	case *kmsg.IncrementalAlterConfigsRequest:
		return partial(r, &q.Resources, b.configs(r, kmsg.ACLOperationAlterConfigs), addResources)
	case *kmsg.AlterConfigsRequest:
		return partial(r, &q.Resources, b.configs(r, kmsg.ACLOperationAlterConfigs), addResources)
	case *kmsg.DescribeConfigsRequest:
		return partial(r, &q.Resources, b.configs(r, kmsg.ACLOperationDescribeConfigs), addResources)
	case *kmsg.FindCoordinatorRequest:
		typ, e := kmsg.ACLResourceTypeGroup, kerr.GroupAuthorizationFailed
		if q.CoordinatorType == 1 {
			typ, e = kmsg.ACLResourceTypeTransactionalId, kerr.TransactionalIDAuthorizationFailed
		} else if q.CoordinatorType == 2 { // share coordinator keys: brokers only
			return clusterOp(kmsg.ACLOperationClusterAction)
		}
		if q.Version >= 4 { // KIP-699: each key answered alone
			return partial(r, &q.CoordinatorKeys, b.ofResource(r, typ, kmsg.ACLOperationDescribe, e), addCoordinator)
		}
		if !b.may(r, check{typ, q.CoordinatorKey, kmsg.ACLOperationDescribe}) {
			resp := q.ResponseKind().(*kmsg.FindCoordinatorResponse)
			resp.ErrorCode, resp.NodeID, resp.Port = e.Code, -1, -1
			return resp, nil
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
		return b.authorizeHeartbeat(r, q.Group, q.SubscribedTopicNames), nil
	case *kmsg.ShareGroupHeartbeatRequest:
		return b.authorizeHeartbeat(r, q.GroupID, q.SubscribedTopicNames), nil
	case *kmsg.ShareFetchRequest:
		return b.groupThenTopics(r, kmsg.ACLOperationRead, derefString(q.GroupID), &q.Topics)
	case *kmsg.ShareAcknowledgeRequest:
		return b.groupThenTopics(r, kmsg.ACLOperationRead, derefString(q.GroupID), &q.Topics)
	case *kmsg.DescribeShareGroupOffsetsRequest:
		return b.authorizeDescribeShareOffsets(r, q)
	case *kmsg.AlterShareGroupOffsetsRequest:
		return b.groupThenTopics(r, kmsg.ACLOperationRead, q.GroupID, &q.Topics)
	case *kmsg.DeleteShareGroupOffsetsRequest:
		return b.groupThenTopics(r, kmsg.ACLOperationDelete, q.GroupID, &q.Topics)
	case *kmsg.OffsetCommitRequest:
		return b.groupThenTopics(r, kmsg.ACLOperationRead, q.Group, &q.Topics)
	case *kmsg.OffsetFetchRequest:
		return b.authorizeOffsetFetch(r, q)
	case *kmsg.OffsetDeleteRequest:
		return b.groupThenTopics(r, kmsg.ACLOperationDelete, q.Group, &q.Topics)
	case *kmsg.DescribeGroupsRequest:
		return partial(r, &q.Groups, groups(kmsg.ACLOperationDescribe), addGroups)
	case *kmsg.ConsumerGroupDescribeRequest:
		deny, trim = partial(r, &q.Groups, groups(kmsg.ACLOperationDescribe), addGroups)
		return deny, both(trim, b.hideGroupsOfRefusedTopics(r))
	case *kmsg.ShareGroupDescribeRequest:
		deny, trim = partial(r, &q.GroupIDs, groups(kmsg.ACLOperationDescribe), addPart("Groups", "GroupID", ""))
		return deny, both(trim, b.hideGroupsOfRefusedTopics(r))
	case *kmsg.DeleteGroupsRequest:
		return partial(r, &q.Groups, groups(kmsg.ACLOperationDelete), addGroups)
	case *kmsg.ListGroupsRequest:
		if b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationDescribe}) {
			return nil, nil // DESCRIBE on the cluster lists every group
		}
		return nil, func(resp kmsg.Response) {
			lr := resp.(*kmsg.ListGroupsResponse)
			lr.Groups = slices.DeleteFunc(lr.Groups, func(g kmsg.ListGroupsResponseGroup) bool {
				return !b.may(r, check{kmsg.ACLResourceTypeGroup, g.Group, kmsg.ACLOperationDescribe})
			})
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
		if deny, _ := txnID(q.TransactionalID); deny != nil {
			return deny, nil
		}
		return b.authorizeAddPartitions(r, q), nil
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
		return b.groupThenTopics(r, kmsg.ACLOperationRead, q.Group, &q.Topics)
	case *kmsg.DescribeTransactionsRequest:
		deny, trim = partial(r, &q.TransactionalIDs, b.ofResource(r, kmsg.ACLResourceTypeTransactionalId, kmsg.ACLOperationDescribe, kerr.TransactionalIDAuthorizationFailed),
			addPart("TransactionStates", "TransactionalID", ""))
		if deny != nil {
			return deny, nil
		}
		return nil, both(trim, b.describableTxnTopics(r))
	case *kmsg.ListTransactionsRequest:
		return nil, func(resp kmsg.Response) {
			lr := resp.(*kmsg.ListTransactionsResponse)
			lr.TransactionStates = slices.DeleteFunc(lr.TransactionStates, func(s kmsg.ListTransactionsResponseTransactionState) bool {
				return !b.may(r, check{kmsg.ACLResourceTypeTransactionalId, s.TransactionalID, kmsg.ACLOperationDescribe})
			})
		}
	case *kmsg.DescribeLogDirsRequest, *kmsg.ListPartitionReassignmentsRequest,
		*kmsg.DescribeACLsRequest, *kmsg.DescribeUserSCRAMCredentialsRequest:
		return clusterOp(kmsg.ACLOperationDescribe)
	case *kmsg.ElectLeadersRequest, *kmsg.AlterPartitionAssignmentsRequest,
		*kmsg.CreateACLsRequest, *kmsg.DeleteACLsRequest, *kmsg.AlterUserSCRAMCredentialsRequest,
		*kmsg.AlterReplicaLogDirsRequest, *kmsg.UpdateFeaturesRequest:
		return clusterOp(kmsg.ACLOperationAlter)
	case *kmsg.DescribeClientQuotasRequest:
		return clusterOp(kmsg.ACLOperationDescribeConfigs)
	case *kmsg.AlterClientQuotasRequest:
		return clusterOp(kmsg.ACLOperationAlterConfigs)
	default:
		// What only brokers send to each other, and what is not mapped
		// above, needs CLUSTER_ACTION.
		return clusterOp(kmsg.ACLOperationClusterAction)
	}
	return nil, nil
}

// configCheck refuses a config resource: a topic's checked on the topic,
// a group's on the group (KIP-848), the others' on the cluster.
func (b *Broker) configCheck(r *Request, typ kmsg.ConfigResourceType, name string, op kmsg.ACLOperation) *kerr.Error {
	c, e := check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, op}, kerr.ClusterAuthorizationFailed
	switch typ {
	case kmsg.ConfigResourceTypeTopic:
		c, e = check{kmsg.ACLResourceTypeTopic, name, op}, kerr.TopicAuthorizationFailed
	case kmsg.ConfigResourceTypeGroupConfig:
		c, e = check{kmsg.ACLResourceTypeGroup, name, op}, kerr.GroupAuthorizationFailed
	}
	if b.may(r, c) {
		return nil
	}
	return e
}

// filterMetadata lets a Metadata request ask only for topics the
// principal may describe, and answers the others
// TOPIC_AUTHORIZATION_FAILED (by id: the id, no name; by name: no id); of
// all topics it lists the describable ones. An id no topic has is
// answered UNKNOWN_TOPIC_ID by the handler.
func (b *Broker) filterMetadata(r *Request) func(kmsg.Response) {
	q := r.Msg.(*kmsg.MetadataRequest)
	describe := b.topicParts(r, kmsg.ACLOperationDescribe)
	trim, kept := split(&q.Topics, func(part any) *kerr.Error {
		t := part.(kmsg.MetadataRequestTopic)
		// A topic that would be auto-created needs CREATE on the
		// cluster or the topic (Kafka's handleTopicMetadataRequest).
		name := b.nameOf(derefString(t.Topic), t.TopicID)
		if name != "" && !b.topicExists(name) &&
			!b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationCreate}) &&
			!b.may(r, check{kmsg.ACLResourceTypeTopic, name, kmsg.ACLOperationCreate}) {
			return kerr.TopicAuthorizationFailed
		}
		return describe(part)
	}, addTopics)
	if trim != nil && kept == 0 && q.Version == 0 {
		q.Topics = nil // v0: an empty list would ask for every topic
	}
	listed := func(resp kmsg.Response) {
		mr := resp.(*kmsg.MetadataResponse)
		mr.Topics = slices.DeleteFunc(mr.Topics, func(t kmsg.MetadataResponseTopic) bool {
			name := b.nameOf(derefString(t.Topic), t.TopicID)
			return name != "" && !b.may(r, check{kmsg.ACLResourceTypeTopic, name, kmsg.ACLOperationDescribe})
		})
	}
	return both(listed, trim)
}
