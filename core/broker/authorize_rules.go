package broker

import (
	"reflect"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The rules (authorize.go) that several APIs share, each as Kafka's
// KafkaApis checks it. A rule is data: it names the request's fields it
// reads (as authorize_parts.go reads parts, by reflection, not a generic
// instantiated per request type), so that a build that calls no rule
// (authorize_js.go) links none of the checks.

// noCheck: never checked (ApiVersions, the SASL requests, and
// DescribeCluster, which Kafka checks only for the authorized operations).
type noCheck struct{}

func (noCheck) authorize(*Broker, *Request) (kmsg.Response, func(kmsg.Response)) { return nil, nil }

// onCluster: op on the cluster, else CLUSTER_AUTHORIZATION_FAILED, whole.
type onCluster struct{ op kmsg.ACLOperation }

func (c onCluster) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	return b.refuseUnless(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, c.op}, kerr.ClusterAuthorizationFailed), nil
}

// onGroup: op on the group the request is routed by (api.group), else
// GROUP_AUTHORIZATION_FAILED, whole.
type onGroup struct{ op kmsg.ACLOperation }

func (g onGroup) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	id, _ := handlers[r.Msg.Key()].group(r.Msg)
	return b.refuseUnless(r, check{kmsg.ACLResourceTypeGroup, id, g.op}, kerr.GroupAuthorizationFailed), nil
}

// onTopics: op on each topic of the request's Topics, a refused one
// answered alone, with msg as its ErrorMessage when set.
type onTopics struct {
	op  kmsg.ACLOperation
	msg string
}

func (t onTopics) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	return partial(r, list(r.Msg, "Topics"), b.topicParts(r, t.op), addPart("Topics", "", t.msg))
}

// onConfigs: op on each config resource of the request's Resources
// (configCheck), a refused one answered alone.
type onConfigs struct{ op kmsg.ACLOperation }

func (c onConfigs) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	return partial(r, list(r.Msg, "Resources"), b.configs(r, c.op), addResources)
}

// onGroups: op on each group of the request's list field, a refused one
// answered alone in the answer's Groups, named in its key field (Group,
// GroupID); with hide, a described group whose assignments name a topic
// the principal may not describe is hidden too (hideGroupsOfRefusedTopics:
// ConsumerGroupDescribe, ShareGroupDescribe).
type onGroups struct {
	op        kmsg.ACLOperation
	list, key string
	hide      bool
}

func (g onGroups) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	deny, trim := partial(r, list(r.Msg, g.list), b.ofResource(r, kmsg.ACLResourceTypeGroup, g.op, kerr.GroupAuthorizationFailed), addPart("Groups", g.key, ""))
	if g.hide {
		return deny, both(trim, b.hideGroupsOfRefusedTopics(r))
	}
	return deny, trim
}

// onGroupThenTopics: op on the request's group (its Group or GroupID),
// then READ on each of its Topics (groupThenTopics).
type onGroupThenTopics struct{ op kmsg.ACLOperation }

func (g onGroupThenTopics) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	return b.groupThenTopics(r, g.op, partGroup(reflect.ValueOf(r.Msg).Elem().Interface()), list(r.Msg, "Topics"))
}

// onHeartbeat: a KIP-848 or share group heartbeat, by its group and its
// SubscribedTopicNames (authorizeHeartbeat).
type onHeartbeat struct{}

func (onHeartbeat) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := reflect.ValueOf(r.Msg).Elem()
	return b.authorizeHeartbeat(r, partGroup(q.Interface()), q.FieldByName("SubscribedTopicNames").Interface().([]string)), nil
}

// list points at the request's list field name, for split.
func list(req kmsg.Request, name string) any {
	return reflect.ValueOf(req).Elem().FieldByName(name).Addr().Interface()
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
