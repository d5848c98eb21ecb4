//go:build !js

package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The APIs whose per-part authorization is more than one split
// (authorize.go, authorize_parts.go), as Kafka's KafkaApis and
// ControllerApis answer them.

// authorizeCreateTopics: CREATE on the cluster allows every topic, else
// each topic needs CREATE on itself. A created topic's configs, partition
// count and replication factor are answered only to who may
// DESCRIBE_CONFIGS it, else ConfigErrorCode (Kafka's TopicConfigErrorCode) says
// TOPIC_AUTHORIZATION_FAILED (KIP-525).
func (b *Broker) authorizeCreateTopics(r *Request, q *kmsg.CreateTopicsRequest) (kmsg.Response, func(kmsg.Response)) {
	var deny kmsg.Response
	var trim func(kmsg.Response)
	if !b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationCreate}) {
		deny, trim = partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationCreate), addPart("Topics", "", "Authorization failed."))
	}
	hide := func(resp kmsg.Response) {
		cr := resp.(*kmsg.CreateTopicsResponse)
		for i := range cr.Topics {
			t := &cr.Topics[i]
			if t.ErrorCode != 0 && t.ErrorCode != kerr.TopicAuthorizationFailed.Code ||
				b.may(r, check{kmsg.ACLResourceTypeTopic, t.Topic, kmsg.ACLOperationDescribeConfigs}) {
				continue
			}
			t.Configs, t.NumPartitions, t.ReplicationFactor = nil, -1, -1
			t.ConfigErrorCode = kerr.TopicAuthorizationFailed.Code
		}
	}
	if deny != nil {
		hide(deny)
		return deny, nil
	}
	return nil, both(trim, hide)
}

// authorizeDeleteTopics: each topic needs DELETE. A topic given by id
// (v6+) that the principal may not DESCRIBE is refused without its name;
// an id no topic has is left to the handler (UNKNOWN_TOPIC_ID).
func (b *Broker) authorizeDeleteTopics(r *Request, q *kmsg.DeleteTopicsRequest) (kmsg.Response, func(kmsg.Response)) {
	if q.Version < 6 {
		return partial(r, &q.TopicNames, b.topicParts(r, kmsg.ACLOperationDelete), addPart("Topics", "Topic", ""))
	}
	named := func(t kmsg.DeleteTopicsRequestTopic) *string {
		if t.Topic != nil {
			return t.Topic
		}
		if n := b.nameOf("", t.TopicID); n != "" && b.may(r, check{kmsg.ACLResourceTypeTopic, n, kmsg.ACLOperationDescribe}) {
			return &n
		}
		return nil
	}
	return partial(r, &q.Topics, func(part any) *kerr.Error {
		t := part.(kmsg.DeleteTopicsRequestTopic)
		if t.Topic == nil && named(t) == nil && b.nameOf("", t.TopicID) != "" {
			return kerr.TopicAuthorizationFailed
		}
		return b.topicRefusal(r, kmsg.ACLOperationDelete, derefString(t.Topic), t.TopicID)
	}, func(resp kmsg.Response, part any, e *kerr.Error) {
		t := part.(kmsg.DeleteTopicsRequestTopic)
		t.Topic = named(t)
		addTopics(resp, t, e)
	})
}

// authorizeOffsetFetch: each group needs DESCRIBE (v8+ answer each group
// alone; before, the group refused refuses the request), and each topic
// asked DESCRIBE; asked for all topics, a group's answer lists only the
// describable ones.
func (b *Broker) authorizeOffsetFetch(r *Request, q *kmsg.OffsetFetchRequest) (kmsg.Response, func(kmsg.Response)) {
	topics := b.topicParts(r, kmsg.ACLOperationDescribe)
	hidden := func(topic string) bool { return topics(topic) != nil }
	if q.Version < 8 {
		if !b.may(r, check{kmsg.ACLResourceTypeGroup, q.Group, kmsg.ACLOperationDescribe}) {
			return wire.ErrorResponse(q, kerr.GroupAuthorizationFailed.Code), nil
		}
		if q.Topics == nil {
			return nil, func(resp kmsg.Response) {
				or := resp.(*kmsg.OffsetFetchResponse)
				or.Topics = slices.DeleteFunc(or.Topics, func(t kmsg.OffsetFetchResponseTopic) bool { return hidden(t.Topic) })
			}
		}
		return partial(r, &q.Topics, topics, addTopics)
	}
	deny, trim := partial(r, &q.Groups, b.ofResource(r, kmsg.ACLResourceTypeGroup, kmsg.ACLOperationDescribe, kerr.GroupAuthorizationFailed), addGroups)
	if deny != nil {
		return deny, nil
	}
	trims := []func(kmsg.Response){trim}
	for i := range q.Groups {
		g := &q.Groups[i]
		if g.Topics == nil {
			id := g.Group
			trims = append(trims, func(resp kmsg.Response) {
				or := resp.(*kmsg.OffsetFetchResponse)
				for j := range or.Groups {
					if rg := &or.Groups[j]; rg.Group == id {
						rg.Topics = slices.DeleteFunc(rg.Topics, func(t kmsg.OffsetFetchResponseGroupTopic) bool { return hidden(t.Topic) })
					}
				}
			})
			continue
		}
		t, _ := split(&g.Topics, topics, addGroupTopic(g.Group))
		trims = append(trims, t)
	}
	return nil, both(trims...)
}

// authorizeHeartbeat: a KIP-848 or share group heartbeat needs READ on
// its group, and a subscription naming a topic the member may not
// DESCRIBE is refused whole (Kafka 4's handleConsumerGroupHeartbeat and
// handleShareGroupHeartbeat).
func (b *Broker) authorizeHeartbeat(r *Request, group string, topics []string) kmsg.Response {
	e := kerr.GroupAuthorizationFailed
	if b.may(r, check{kmsg.ACLResourceTypeGroup, group, kmsg.ACLOperationRead}) {
		if !slices.ContainsFunc(topics, func(t string) bool { return b.topicRefusal(r, kmsg.ACLOperationDescribe, t, [16]byte{}) != nil }) {
			return nil
		}
		e = kerr.TopicAuthorizationFailed
	}
	return wire.ErrorResponse(r.Msg, e.Code)
}

// groupThenTopics: the request's group needs op (else the whole request
// is GROUP_AUTHORIZATION_FAILED), and each of its topics (*topics, a
// pointer to the request's list) READ, a refused one answered alone
// (OffsetCommit, OffsetDelete, TxnOffsetCommit, ShareFetch,
// ShareAcknowledge, Alter/DeleteShareGroupOffsets).
func (b *Broker) groupThenTopics(r *Request, op kmsg.ACLOperation, group string, topics any) (kmsg.Response, func(kmsg.Response)) {
	if !b.may(r, check{kmsg.ACLResourceTypeGroup, group, op}) {
		return wire.ErrorResponse(r.Msg, kerr.GroupAuthorizationFailed.Code), nil
	}
	return partial(r, topics, b.topicParts(r, kmsg.ACLOperationRead), addTopics)
}

// authorizeDescribeShareOffsets: each share group needs DESCRIBE, each
// topic asked DESCRIBE; asked for all topics, a group's answer lists only
// the describable ones (KIP-932).
func (b *Broker) authorizeDescribeShareOffsets(r *Request, q *kmsg.DescribeShareGroupOffsetsRequest) (kmsg.Response, func(kmsg.Response)) {
	deny, trim := partial(r, &q.Groups, b.ofResource(r, kmsg.ACLResourceTypeGroup, kmsg.ACLOperationDescribe, kerr.GroupAuthorizationFailed), addGroups)
	if deny != nil {
		return deny, nil
	}
	topics := b.topicParts(r, kmsg.ACLOperationDescribe)
	trims := []func(kmsg.Response){trim}
	for i := range q.Groups {
		g := &q.Groups[i]
		if g.Topics != nil {
			t, _ := split(&g.Topics, topics, addGroupTopic(g.GroupID))
			trims = append(trims, t)
			continue
		}
		id := g.GroupID
		trims = append(trims, func(resp kmsg.Response) {
			dr := resp.(*kmsg.DescribeShareGroupOffsetsResponse)
			for j := range dr.Groups {
				if rg := &dr.Groups[j]; rg.GroupID == id {
					rg.Topics = slices.DeleteFunc(rg.Topics, func(t kmsg.DescribeShareGroupOffsetsResponseGroupTopic) bool { return topics(t.Topic) != nil })
				}
			}
		})
	}
	return nil, both(trims...)
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

// refusedTopicsMessage is Kafka's message for a described group hidden
// for its topics.
const refusedTopicsMessage = "The group has described topic(s) that the client is not authorized to describe."

// hideGroupsOfRefusedTopics answers TOPIC_AUTHORIZATION_FAILED, without
// its members, a group of a ConsumerGroupDescribe or ShareGroupDescribe
// answer in which a member's assignment or (KIP-848) target assignment
// names a topic the principal may not describe, so that the answer names
// no such topic (Kafka's handleConsumerGroupDescribe and
// handleShareGroupDescribe; the subscriptions are not checked).
func (b *Broker) hideGroupsOfRefusedTopics(r *Request) func(kmsg.Response) {
	refused := map[string]bool{}
	hidden := func(topic string) bool {
		no, seen := refused[topic]
		if !seen {
			no = !b.may(r, check{kmsg.ACLResourceTypeTopic, topic, kmsg.ACLOperationDescribe})
			refused[topic] = no
		}
		return no
	}
	assigned := func(a kmsg.Assignment) bool {
		return slices.ContainsFunc(a.TopicPartitions, func(tp kmsg.AssignmentTopicPartition) bool { return hidden(tp.Topic) })
	}
	code, msg := kerr.TopicAuthorizationFailed.Code, kmsg.StringPtr(refusedTopicsMessage)
	return func(resp kmsg.Response) {
		switch m := resp.(type) {
		case *kmsg.ConsumerGroupDescribeResponse:
			for i, g := range m.Groups {
				if slices.ContainsFunc(g.Members, func(gm kmsg.ConsumerGroupDescribeResponseGroupMember) bool {
					return assigned(gm.Assignment) || assigned(gm.TargetAssignment)
				}) {
					m.Groups[i] = kmsg.NewConsumerGroupDescribeResponseGroup()
					m.Groups[i].Group, m.Groups[i].ErrorCode, m.Groups[i].ErrorMessage = g.Group, code, msg
				}
			}
		case *kmsg.ShareGroupDescribeResponse:
			for i, g := range m.Groups {
				if slices.ContainsFunc(g.Members, func(gm kmsg.ShareGroupDescribeResponseGroupMember) bool {
					return slices.ContainsFunc(gm.Assignment.TopicPartitions, func(tp kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition) bool {
						return hidden(tp.Topic)
					})
				}) {
					m.Groups[i] = kmsg.NewShareGroupDescribeResponseGroup()
					m.Groups[i].GroupID, m.Groups[i].ErrorCode, m.Groups[i].ErrorMessage = g.GroupID, code, msg
				}
			}
		}
	}
}
