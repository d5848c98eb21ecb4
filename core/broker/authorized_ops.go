package broker

import (
	"math"
	"reflect"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// Authorized operations (KIP-430). Metadata v8+ (its topics; the cluster
// on v8-10 only), DescribeCluster, DescribeGroups v3+,
// ConsumerGroupDescribe and ShareGroupDescribe answer, when the request
// asks (IncludeTopicAuthorizedOperations,
// IncludeClusterAuthorizedOperations, IncludeAuthorizedOperations), a
// 32-bit field with bit op set for each operation the request's principal
// may perform on the resource, among those Kafka supports on its type
// (AclEntry.supportedOperations), each decided as the authorizer decides
// a request of it (ALL, implied DESCRIBE and DESCRIBE_CONFIGS, a DENY
// winning: cluster/acl.go), as Kafka's AuthHelper.authorizedOperations
// computes it. authorizedOps is the one place that computes it; each
// API's file says which fields of its answer carry it (api.ops).
//
// Invariants:
//   - Not asked, the field is INT32_MIN (the schema's default); so is it
//     for a group answered with an error and for a topic answered
//     TOPIC_AUTHORIZATION_FAILED (Kafka fills the field of a topic it let
//     the principal describe, even an unknown one).
//   - The cluster's field is 0 for a principal that may not DESCRIBE the
//     cluster, as Kafka answers it.
//   - Without an authorizer, or for a request without a principal (the
//     browser builds carry none: allows is always true there), every
//     supported operation is set.
//   - It is filled as the answer is delivered, after the trims (trims.go),
//     so that the parts they add refused keep INT32_MIN.

// check is one authorization: op on the named resource of type rtype.
type check struct {
	rtype kmsg.ACLResourceType
	name  string
	op    kmsg.ACLOperation
}

// noOps is the field's schema default, not asked for.
const noOps = math.MinInt32

// supportedOps are the operations of a resource type the field can carry.
func supportedOps(t kmsg.ACLResourceType) []kmsg.ACLOperation {
	switch t {
	case kmsg.ACLResourceTypeTopic:
		return []kmsg.ACLOperation{kmsg.ACLOperationRead, kmsg.ACLOperationWrite, kmsg.ACLOperationCreate, kmsg.ACLOperationDescribe,
			kmsg.ACLOperationDelete, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationAlterConfigs}
	case kmsg.ACLResourceTypeGroup:
		return []kmsg.ACLOperation{kmsg.ACLOperationRead, kmsg.ACLOperationDescribe, kmsg.ACLOperationDelete,
			kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationAlterConfigs}
	case kmsg.ACLResourceTypeCluster:
		return []kmsg.ACLOperation{kmsg.ACLOperationCreate, kmsg.ACLOperationClusterAction, kmsg.ACLOperationDescribeConfigs,
			kmsg.ACLOperationAlterConfigs, kmsg.ACLOperationIdempotentWrite, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribe}
	case kmsg.ACLResourceTypeTransactionalId:
		return []kmsg.ACLOperation{kmsg.ACLOperationDescribe, kmsg.ACLOperationWrite}
	case kmsg.ACLResourceTypeDelegationToken:
		return []kmsg.ACLOperation{kmsg.ACLOperationDescribe}
	case kmsg.ACLResourceTypeUser:
		return []kmsg.ACLOperation{kmsg.ACLOperationCreateTokens, kmsg.ACLOperationDescribeTokens}
	}
	return nil
}

// authorizedOps is the field for r's principal and host on a resource.
func (b *Broker) authorizedOps(r *Request, t kmsg.ACLResourceType, name string) int32 {
	var ops int32
	for _, op := range supportedOps(t) {
		if b.allows(r, check{t, name, op}) {
			ops |= 1 << op
		}
	}
	return ops
}

// clusterOps is the cluster's field, asked or not.
func (b *Broker) clusterOps(r *Request, asked bool) int32 {
	switch {
	case !asked:
		return noOps
	case !b.allows(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationDescribe}):
		return 0
	}
	return b.authorizedOps(r, kmsg.ACLResourceTypeCluster, cluster.ClusterResource)
}

// fillAuthorizedOps sets the fields of an answer to r, as r's API says
// (api.ops).
func (b *Broker) fillAuthorizedOps(r *Request, resp kmsg.Response) {
	if fill := handlers[r.Msg.Key()].ops; fill != nil {
		fill(b, r, resp)
	}
}

// opsIf is the field of a resource, INT32_MIN unless asked and ok.
func (b *Broker) opsIf(r *Request, asked, ok bool, t kmsg.ACLResourceType, name string) int32 {
	if !asked || !ok {
		return noOps
	}
	return b.authorizedOps(r, t, name)
}

// describedGroupsOps fills the field of each group a describing answer
// lists (DescribeGroups v3+, ConsumerGroupDescribe, ShareGroupDescribe),
// when asked (IncludeAuthorizedOperations) and found: every such answer
// lists them in Groups, by Group or GroupID.
func describedGroupsOps(b *Broker, r *Request, resp kmsg.Response) {
	if resp.Key() != r.Msg.Key() {
		return
	}
	asked := reflect.ValueOf(r.Msg).Elem().FieldByName("IncludeAuthorizedOperations").Bool()
	gs := reflect.ValueOf(resp).Elem().FieldByName("Groups")
	for i := range gs.Len() {
		g := gs.Index(i)
		ops := b.opsIf(r, asked, g.FieldByName("ErrorCode").Int() == 0, kmsg.ACLResourceTypeGroup, partGroup(g.Interface()))
		g.FieldByName("AuthorizedOperations").SetInt(int64(ops))
	}
}
