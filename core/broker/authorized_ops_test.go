//go:build !js

package broker

import (
	"math"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// bits is the field of the operations ops.
func bits(ops ...kmsg.ACLOperation) int32 {
	var f int32
	for _, op := range ops {
		f |= 1 << op
	}
	return f
}

// Kafka's AclEntry.supportedOperations, spelled out once more so that the
// test does not read supportedOps.
var (
	allTopic = bits(kmsg.ACLOperationRead, kmsg.ACLOperationWrite, kmsg.ACLOperationCreate, kmsg.ACLOperationDescribe,
		kmsg.ACLOperationDelete, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationAlterConfigs)
	allGroup = bits(kmsg.ACLOperationRead, kmsg.ACLOperationDescribe, kmsg.ACLOperationDelete,
		kmsg.ACLOperationDescribeConfigs, kmsg.ACLOperationAlterConfigs)
	allCluster = bits(kmsg.ACLOperationCreate, kmsg.ACLOperationClusterAction, kmsg.ACLOperationDescribeConfigs,
		kmsg.ACLOperationAlterConfigs, kmsg.ACLOperationIdempotentWrite, kmsg.ACLOperationAlter, kmsg.ACLOperationDescribe)
)

// TestAuthorizedOpsPerType: without an authorizer (or for a request
// without a principal) the field is every operation Kafka supports on the
// resource type; with one, the operations alice's bindings allow, with
// DESCRIBE implied by READ and DESCRIBE_CONFIGS by ALTER_CONFIGS, ALL
// standing for each, and a DENY winning over an ALLOW.
func TestAuthorizedOpsPerType(t *testing.T) {
	h := newHarness(t, nil)
	alice := &Request{Principal: "User:alice", Host: "/10.0.0.1"}
	type res struct {
		rtype kmsg.ACLResourceType
		name  string
	}
	all := map[res]int32{
		{kmsg.ACLResourceTypeTopic, "t"}:               allTopic,
		{kmsg.ACLResourceTypeGroup, "g"}:               allGroup,
		{kmsg.ACLResourceTypeCluster, "kafka-cluster"}: allCluster,
		{kmsg.ACLResourceTypeTransactionalId, "x"}:     bits(kmsg.ACLOperationDescribe, kmsg.ACLOperationWrite),
		{kmsg.ACLResourceTypeDelegationToken, "tok"}:   bits(kmsg.ACLOperationDescribe),
		{kmsg.ACLResourceTypeUser, "User:alice"}:       bits(kmsg.ACLOperationCreateTokens, kmsg.ACLOperationDescribeTokens),
	}
	for r, want := range all {
		if got := h.b.authorizedOps(alice, r.rtype, r.name); got != want {
			t.Errorf("no authorizer, %v %s: %b, want %b", r.rtype, r.name, got, want)
		}
	}

	h.b.cfg.Authorizer = &cluster.Authorizer{}
	h.b.meta.ACLs = map[string]*cluster.ACL{}
	bind := func(rtype kmsg.ACLResourceType, name string, op kmsg.ACLOperation, perm kmsg.ACLPermissionType) {
		a := &cluster.ACL{ResourceType: int8(rtype), ResourceName: name, PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
			Principal: "User:alice", Host: "*", Operation: int8(op), Permission: int8(perm)}
		h.b.meta.ACLs[cluster.ACLKey(a)] = a
	}
	allow, deny := kmsg.ACLPermissionTypeAllow, kmsg.ACLPermissionTypeDeny
	bind(kmsg.ACLResourceTypeTopic, "t", kmsg.ACLOperationRead, allow)
	bind(kmsg.ACLResourceTypeTopic, "u", kmsg.ACLOperationAll, allow)
	bind(kmsg.ACLResourceTypeTopic, "u", kmsg.ACLOperationWrite, deny)
	bind(kmsg.ACLResourceTypeTopic, "v", kmsg.ACLOperationRead, allow)
	bind(kmsg.ACLResourceTypeTopic, "v", kmsg.ACLOperationDescribe, deny)
	bind(kmsg.ACLResourceTypeGroup, "g", kmsg.ACLOperationRead, allow)
	bind(kmsg.ACLResourceTypeCluster, "kafka-cluster", kmsg.ACLOperationAlterConfigs, allow)
	bind(kmsg.ACLResourceTypeTransactionalId, "x", kmsg.ACLOperationAll, deny)
	bind(kmsg.ACLResourceTypeTransactionalId, "x", kmsg.ACLOperationWrite, allow)
	for _, c := range []struct {
		res
		want int32
	}{
		{res{kmsg.ACLResourceTypeTopic, "t"}, bits(kmsg.ACLOperationRead, kmsg.ACLOperationDescribe)},
		{res{kmsg.ACLResourceTypeTopic, "u"}, allTopic &^ bits(kmsg.ACLOperationWrite)},
		{res{kmsg.ACLResourceTypeTopic, "v"}, bits(kmsg.ACLOperationRead)},
		{res{kmsg.ACLResourceTypeTopic, "w"}, 0},
		{res{kmsg.ACLResourceTypeGroup, "g"}, bits(kmsg.ACLOperationRead, kmsg.ACLOperationDescribe)},
		{res{kmsg.ACLResourceTypeCluster, "kafka-cluster"}, bits(kmsg.ACLOperationAlterConfigs, kmsg.ACLOperationDescribeConfigs)},
		{res{kmsg.ACLResourceTypeTransactionalId, "x"}, 0},
	} {
		if got := h.b.authorizedOps(alice, c.rtype, c.name); got != c.want {
			t.Errorf("alice on %v %s: %b, want %b", c.rtype, c.name, got, c.want)
		}
	}
	if got := h.b.authorizedOps(&Request{}, kmsg.ACLResourceTypeTopic, "w"); got != allTopic {
		t.Errorf("a request without a principal on topic w: %b, want every topic operation", got)
	}
}

// TestAuthorizedOpsAnswers: Metadata, DescribeCluster, DescribeGroups,
// ConsumerGroupDescribe and ShareGroupDescribe fill the field only when
// asked (INT32_MIN otherwise, and for a refused part), the cluster's
// only on Metadata v8-10 and as 0 without DESCRIBE on the cluster.
func TestAuthorizedOpsAnswers(t *testing.T) {
	h := authzHarness(t) // alice: ALL on topics a*, groups g, tx
	const unset = math.MinInt32

	md := func(v int16, cluster, topics bool) *kmsg.MetadataResponse {
		req := kmsg.NewPtrMetadataRequest()
		req.SetVersion(v)
		req.IncludeClusterAuthorizedOperations, req.IncludeTopicAuthorizedOperations = cluster, topics
		for _, n := range []string{"a", "b"} {
			mt := kmsg.NewMetadataRequestTopic()
			mt.Topic = kmsg.StringPtr(n)
			req.Topics = append(req.Topics, mt)
		}
		return rt[*kmsg.MetadataResponse](h, req)
	}
	topicOps := func(m *kmsg.MetadataResponse) map[string]int32 {
		out := map[string]int32{}
		for _, tp := range m.Topics {
			out[*tp.Topic] = tp.AuthorizedOperations
		}
		return out
	}
	m := md(10, true, true)
	if got := topicOps(m); got["a"] != allTopic || got["b"] != unset || m.AuthorizedOperations != 0 {
		t.Errorf("Metadata v10, asked: topics %v cluster %d; want a every topic op, b (refused) INT32_MIN, cluster 0 (no DESCRIBE)", got, m.AuthorizedOperations)
	}
	if m = md(12, true, false); topicOps(m)["a"] != unset || m.AuthorizedOperations != unset {
		t.Errorf("Metadata v12, topics not asked (and no cluster field): a %d cluster %d, want INT32_MIN", topicOps(m)["a"], m.AuthorizedOperations)
	}
	a := &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeCluster), ResourceName: cluster.ClusterResource, PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
		Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationIdempotentWrite), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	h.b.meta.ACLs[cluster.ACLKey(a)] = a
	if m = md(10, true, false); m.AuthorizedOperations != 0 {
		t.Errorf("cluster without DESCRIBE: %b, want 0", m.AuthorizedOperations)
	}
	a = &cluster.ACL{ResourceType: a.ResourceType, ResourceName: a.ResourceName, PatternType: a.PatternType,
		Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationDescribe), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	h.b.meta.ACLs[cluster.ACLKey(a)] = a
	wantCluster := bits(kmsg.ACLOperationDescribe, kmsg.ACLOperationIdempotentWrite)
	if m = md(10, true, false); m.AuthorizedOperations != wantCluster || topicOps(m)["a"] != unset {
		t.Errorf("Metadata v10, cluster asked: cluster %b a %d, want %b and INT32_MIN", m.AuthorizedOperations, topicOps(m)["a"], wantCluster)
	}
	for _, asked := range []bool{true, false} {
		dc := kmsg.NewPtrDescribeClusterRequest()
		dc.IncludeClusterAuthorizedOperations = asked
		want := int32(unset)
		if asked {
			want = wantCluster
		}
		if got := rt[*kmsg.DescribeClusterResponse](h, dc).ClusterAuthorizedOperations; got != want {
			t.Errorf("DescribeCluster asked=%v: %b, want %b", asked, got, want)
		}
	}

	// Groups: g (a consumer group on a) and g2 (on b, joined by a peer);
	// alice may describe g and g2 but not topic b, nor group h.
	a = &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeGroup), ResourceName: "g2", PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
		Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationDescribe), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	h.b.meta.ACLs[cluster.ACLKey(a)] = a
	join := func(group, topic string) {
		hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		hb.Group, hb.MemberID, hb.RebalanceTimeoutMillis, hb.SubscribedTopicNames = group, "m-"+group, 60000, []string{topic}
		must(t, "join "+group, rt[*kmsg.ConsumerGroupHeartbeatResponse](h, hb).ErrorCode)
	}
	join("g", "a")
	h.asPeer(func() { join("g2", "b") })
	for _, asked := range []bool{true, false} {
		cd := kmsg.NewPtrConsumerGroupDescribeRequest()
		cd.Groups, cd.IncludeAuthorizedOperations = []string{"g", "g2", "h"}, asked
		got := map[string]kmsg.ConsumerGroupDescribeResponseGroup{}
		for _, g := range rt[*kmsg.ConsumerGroupDescribeResponse](h, cd).Groups {
			got[g.Group] = g
		}
		want := int32(unset)
		if asked {
			want = allGroup
		}
		if g := got["g"]; g.ErrorCode != 0 || len(g.Members) != 1 || g.AuthorizedOperations != want {
			t.Errorf("ConsumerGroupDescribe asked=%v, g: error %d, %d members, ops %b; want 1 member and %b", asked, g.ErrorCode, len(g.Members), g.AuthorizedOperations, want)
		}
		if g := got["g2"]; g.ErrorCode != topicDenied || len(g.Members) != 0 || g.AuthorizedOperations != unset || g.ErrorMessage == nil {
			t.Errorf("ConsumerGroupDescribe asked=%v, g2 (assigned b): %+v, want TOPIC_AUTHORIZATION_FAILED, no member, INT32_MIN", asked, g)
		}
		if g := got["h"]; g.ErrorCode != groupDenied || g.AuthorizedOperations != unset {
			t.Errorf("ConsumerGroupDescribe asked=%v, h: error %d ops %d, want GROUP_AUTHORIZATION_FAILED and INT32_MIN", asked, g.ErrorCode, g.AuthorizedOperations)
		}

		dg := kmsg.NewPtrDescribeGroupsRequest()
		dg.Groups, dg.IncludeAuthorizedOperations = []string{"cg", "h"}, asked
		a = &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeGroup), ResourceName: "cg", PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
			Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationRead), Permission: int8(kmsg.ACLPermissionTypeAllow)}
		h.b.meta.ACLs[cluster.ACLKey(a)] = a
		if asked {
			want = bits(kmsg.ACLOperationRead, kmsg.ACLOperationDescribe)
		}
		dr := rt[*kmsg.DescribeGroupsResponse](h, dg)
		if len(dr.Groups) != 2 || dr.Groups[0].AuthorizedOperations != want || dr.Groups[1].AuthorizedOperations != unset {
			t.Errorf("DescribeGroups asked=%v: %+v, want cg %b and h (refused) INT32_MIN", asked, dr.Groups, want)
		}
	}

	// A share group on b: alice may describe the group, not the topic.
	h.asPeer(func() { shareHeartbeat(h, "s1", 0, "b") })
	describe := func() *kmsg.ShareGroupDescribeResponse {
		sd := kmsg.NewPtrShareGroupDescribeRequest() // one each time: the authorizer takes refused groups out
		sd.SetVersion(1)
		sd.GroupIDs, sd.IncludeAuthorizedOperations = []string{"sg"}, true
		return rt[*kmsg.ShareGroupDescribeResponse](h, sd)
	}
	if g := describe().Groups[0]; g.ErrorCode != groupDenied || g.AuthorizedOperations != unset {
		t.Errorf("ShareGroupDescribe of sg without DESCRIBE: error %d ops %d, want GROUP_AUTHORIZATION_FAILED, INT32_MIN", g.ErrorCode, g.AuthorizedOperations)
	}
	a = &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeGroup), ResourceName: "sg", PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
		Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationDescribe), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	h.b.meta.ACLs[cluster.ACLKey(a)] = a
	if g := describe().Groups[0]; g.ErrorCode != topicDenied || len(g.Members) != 0 {
		t.Errorf("ShareGroupDescribe of sg (assigned b): %+v, want TOPIC_AUTHORIZATION_FAILED without members", g)
	}
	h.asPeer(func() {
		if g := describe().Groups[0]; g.ErrorCode != 0 || len(g.Members) != 1 || g.AuthorizedOperations != allGroup {
			t.Errorf("ShareGroupDescribe of sg by a peer: %+v, want its member and every group op", g)
		}
	})
}
