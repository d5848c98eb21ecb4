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
//     trim (Request.trim) adds them, each with Kafka's error for it, to its
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
//   - Each API's file says what its requests need (api.acl, a rule: a
//     reusable one of authorize_rules.go, or the API's own); an API with
//     none is what only brokers send each other, and needs CLUSTER_ACTION.
//   - The js builds (browser, Workers) carry no principal and leave the
//     authorizer out (authorize_js.go): nothing there calls a rule, so the
//     linker drops every rule's method and what only they call.

// rule is what one API's requests need to pass the authorizer: it
// returns the answer refusing r, or nil and perhaps a trim of the
// handler's answer (trims.go). Only authorize_native.go calls it.
type rule interface {
	authorize(b *Broker, r *Request) (deny kmsg.Response, trim func(kmsg.Response))
}

// may reports whether the request's principal passes the check.
func (b *Broker) may(r *Request, c check) bool {
	host := strings.TrimPrefix(r.Host, "/")
	return b.cfg.Authorizer.Authorize(b.image.acls(), r.Principal, host, int8(c.op), int8(c.rtype), c.name)
}

// refuseUnless answers r with e, whole, unless r passes c.
func (b *Broker) refuseUnless(r *Request, c check, e *kerr.Error) kmsg.Response {
	if b.may(r, c) {
		return nil
	}
	return wire.ErrorResponse(r.Msg, e.Code)
}

// refuseTxnID answers r TRANSACTIONAL_ID_AUTHORIZATION_FAILED, whole,
// unless it may WRITE the transactional id (KIP-98).
func (b *Broker) refuseTxnID(r *Request, id string) kmsg.Response {
	return b.refuseUnless(r, check{kmsg.ACLResourceTypeTransactionalId, id, kmsg.ACLOperationWrite}, kerr.TransactionalIDAuthorizationFailed)
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
