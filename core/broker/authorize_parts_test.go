//go:build !js

package broker

import (
	"maps"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// Codes used by the per-part tests.
var (
	topicDenied = kerr.TopicAuthorizationFailed.Code
	groupDenied = kerr.GroupAuthorizationFailed.Code
)

// authzHarness: topics a and b with one record each, an authorizer, and
// requests signed by User:alice, who may do anything with the topics
// whose names start with "a", group g and transactional id tx, and
// nothing else.
func authzHarness(t *testing.T) *harness {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	for _, name := range []string{"a", "b"} {
		h.createTopic(name, 1, nil)
		must(t, "produce "+name, rt[*kmsg.ProduceResponse](h, produceReq(name, 0, 1, batchOf("x"))).Topics[0].Partitions[0].ErrorCode)
	}
	h.b.cfg.Authorizer = &cluster.Authorizer{}
	h.b.meta.ACLs = map[string]*cluster.ACL{}
	grant := func(rtype kmsg.ACLResourceType, name string, pattern kmsg.ACLResourcePatternType) {
		a := &cluster.ACL{ResourceType: int8(rtype), ResourceName: name, PatternType: int8(pattern),
			Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationAll), Permission: int8(kmsg.ACLPermissionTypeAllow)}
		h.b.meta.ACLs[cluster.ACLKey(a)] = a
	}
	grant(kmsg.ACLResourceTypeTopic, "a", kmsg.ACLResourcePatternTypePrefixed)
	grant(kmsg.ACLResourceTypeGroup, "g", kmsg.ACLResourcePatternTypeLiteral)
	grant(kmsg.ACLResourceTypeTransactionalId, "tx", kmsg.ACLResourcePatternTypeLiteral)
	h.principal = "User:alice"
	return h
}

// asPeer runs fn with requests no principal signs.
func (h *harness) asPeer(fn func()) {
	p := h.principal
	h.principal = ""
	fn()
	h.principal = p
}

func wantCodes(t *testing.T, what string, got, want map[string]int16) {
	t.Helper()
	if !maps.Equal(got, want) {
		t.Errorf("%s: codes %v, want %v", what, got, want)
	}
}

// codesOf maps each item of an answer's list to its code.
func codesOf[T any](items []T, code func(T) (string, int16)) map[string]int16 {
	out := map[string]int16{}
	for _, it := range items {
		name, c := code(it)
		out[name] = c
	}
	return out
}

// TestAuthorizeFetchPerTopic: a Fetch of a and b reads a and refuses b;
// by topic id, an id no topic has is UNKNOWN_TOPIC_ID (ids are resolved
// before authorizing); a follower without CLUSTER_ACTION gets every
// partition refused.
func TestAuthorizeFetchPerTopic(t *testing.T) {
	h := authzHarness(t)
	req := fetchReq("a", 0, 0, 0, 0)
	req.Topics = append(req.Topics, fetchReq("b", 0, 0, 0, 0).Topics...)
	resp := rt[*kmsg.FetchResponse](h, req)
	got := map[string]int16{}
	for _, rt := range resp.Topics {
		p := rt.Partitions[0]
		got[rt.Topic] = p.ErrorCode
		if rt.Topic == "a" && (p.HighWatermark != 1 || len(p.RecordBatches) == 0) {
			t.Errorf("a: high watermark %d, %d bytes of records; want 1 and the record", p.HighWatermark, len(p.RecordBatches))
		}
		if rt.Topic == "b" && (p.HighWatermark != -1 || len(p.RecordBatches) != 0) {
			t.Errorf("b refused but answered high watermark %d and %d bytes", p.HighWatermark, len(p.RecordBatches))
		}
	}
	wantCodes(t, "Fetch a, b", got, map[string]int16{"a": 0, "b": topicDenied})

	byID := fetchReq("", 0, 0, 0, 0)
	byID.SetVersion(13)
	unknown := [16]byte{9, 9, 9}
	for _, id := range [][16]byte{h.b.Topic("a").ID, h.b.Topic("b").ID, unknown} {
		ft := byID.Topics[0]
		ft.TopicID = id
		byID.Topics = append(byID.Topics, ft)
	}
	byID.Topics = byID.Topics[1:]
	resp = rt[*kmsg.FetchResponse](h, byID)
	got = map[string]int16{}
	names := map[[16]byte]string{h.b.Topic("a").ID: "a", h.b.Topic("b").ID: "b", unknown: "unknown"}
	for _, rt := range resp.Topics {
		got[names[rt.TopicID]] = rt.Partitions[0].ErrorCode
	}
	wantCodes(t, "Fetch v13 by id", got, map[string]int16{"a": 0, "b": topicDenied, "unknown": kerr.UnknownTopicID.Code})

	follower := fetchReq("a", 0, 0, 0, 0)
	follower.ReplicaID = 2
	resp = rt[*kmsg.FetchResponse](h, follower)
	if len(resp.Topics) != 1 || resp.Topics[0].Partitions[0].ErrorCode != topicDenied {
		t.Errorf("a follower's Fetch without CLUSTER_ACTION: %+v, want a refused", resp.Topics)
	}
}

// TestAuthorizeMetadata: Metadata answers b refused, by name without its
// id and by id without its name, an id no topic has UNKNOWN_TOPIC_ID, and
// lists of all topics only a.
func TestAuthorizeMetadata(t *testing.T) {
	h := authzHarness(t)
	aID, bID, unknown := h.b.Topic("a").ID, h.b.Topic("b").ID, [16]byte{9}
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(12)
	a, b := "a", "b"
	md.Topics = []kmsg.MetadataRequestTopic{{Topic: &a}, {Topic: &b}, {TopicID: bID}, {TopicID: unknown}}
	type answer struct {
		name string
		id   [16]byte
		code int16
	}
	var got []answer
	for _, mt := range rt[*kmsg.MetadataResponse](h, md).Topics {
		got = append(got, answer{derefString(mt.Topic), mt.TopicID, mt.ErrorCode})
	}
	want := []answer{{"a", aID, 0}, {"", unknown, kerr.UnknownTopicID.Code}, {"b", [16]byte{}, topicDenied}, {"", bID, topicDenied}}
	if !slices.Equal(got, want) {
		t.Errorf("Metadata of a, b, b's id and an unknown id:\n got %v\nwant %v", got, want)
	}
	md.Topics = nil
	var listed []string
	for _, mt := range rt[*kmsg.MetadataResponse](h, md).Topics {
		listed = append(listed, derefString(mt.Topic))
	}
	if !slices.Equal(listed, []string{"a"}) {
		t.Errorf("Metadata of all topics lists %v, want only a", listed)
	}
}

// TestAuthorizeTopicParts: every API that names several topics answers
// a (allowed: the work is done) and refuses b with Kafka's code.
func TestAuthorizeTopicParts(t *testing.T) {
	h := authzHarness(t)

	lo := kmsg.NewPtrListOffsetsRequest()
	lo.SetVersion(7)
	for _, n := range []string{"a", "b"} {
		lo.Topics = append(lo.Topics, kmsg.ListOffsetsRequestTopic{Topic: n, Partitions: []kmsg.ListOffsetsRequestTopicPartition{{Partition: 0, CurrentLeaderEpoch: -1, Timestamp: -1}}})
	}
	got, offsets := map[string]int16{}, map[string]int64{}
	for _, rt := range rt[*kmsg.ListOffsetsResponse](h, lo).Topics {
		got[rt.Topic], offsets[rt.Topic] = rt.Partitions[0].ErrorCode, rt.Partitions[0].Offset
	}
	wantCodes(t, "ListOffsets", got, map[string]int16{"a": 0, "b": topicDenied})
	if offsets["a"] != 1 || offsets["b"] != -1 {
		t.Errorf("ListOffsets offsets %v, want a 1 and b -1", offsets)
	}

	oe := kmsg.NewPtrOffsetForLeaderEpochRequest()
	oe.SetVersion(4)
	oe.ReplicaID = -1
	for _, n := range []string{"a", "b"} {
		oe.Topics = append(oe.Topics, kmsg.OffsetForLeaderEpochRequestTopic{Topic: n, Partitions: []kmsg.OffsetForLeaderEpochRequestTopicPartition{{Partition: 0, CurrentLeaderEpoch: -1, LeaderEpoch: 0}}})
	}
	got = codesOf(rt[*kmsg.OffsetForLeaderEpochResponse](h, oe).Topics, func(it kmsg.OffsetForLeaderEpochResponseTopic) (string, int16) {
		return it.Topic, it.Partitions[0].ErrorCode
	})
	wantCodes(t, "OffsetForLeaderEpoch", got, map[string]int16{"a": 0, "b": topicDenied})

	dp := kmsg.NewPtrDescribeProducersRequest()
	dp.Topics = []kmsg.DescribeProducersRequestTopic{{Topic: "a", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}
	got = codesOf(rt[*kmsg.DescribeProducersResponse](h, dp).Topics, func(it kmsg.DescribeProducersResponseTopic) (string, int16) {
		return it.Topic, it.Partitions[0].ErrorCode
	})
	wantCodes(t, "DescribeProducers", got, map[string]int16{"a": 0, "b": topicDenied})

	dr := kmsg.NewPtrDeleteRecordsRequest()
	dr.SetVersion(2)
	for _, n := range []string{"a", "b"} {
		dr.Topics = append(dr.Topics, kmsg.DeleteRecordsRequestTopic{Topic: n, Partitions: []kmsg.DeleteRecordsRequestTopicPartition{{Partition: 0, Offset: 1}}})
	}
	got, offsets = map[string]int16{}, map[string]int64{}
	for _, rt := range rt[*kmsg.DeleteRecordsResponse](h, dr).Topics {
		got[rt.Topic], offsets[rt.Topic] = rt.Partitions[0].ErrorCode, rt.Partitions[0].LowWatermark
	}
	wantCodes(t, "DeleteRecords", got, map[string]int16{"a": 0, "b": topicDenied})
	if offsets["a"] != 1 || offsets["b"] != -1 || h.b.Topic("b").Partitions[0].Log().StartOffset() != 0 {
		t.Errorf("DeleteRecords low watermarks %v (b starts at %d), want a 1, b -1 and untouched", offsets, h.b.Topic("b").Partitions[0].Log().StartOffset())
	}

	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.SetVersion(7)
	for _, n := range []string{"a2", "b2"} {
		ct.Topics = append(ct.Topics, kmsg.CreateTopicsRequestTopic{Topic: n, NumPartitions: 1, ReplicationFactor: 1})
	}
	got = map[string]int16{}
	for _, rt := range rt[*kmsg.CreateTopicsResponse](h, ct).Topics {
		got[rt.Topic] = rt.ErrorCode
		if rt.Topic == "a2" && (rt.NumPartitions != 1 || len(rt.Configs) == 0 || rt.ConfigErrorCode != 0) {
			t.Errorf("a2 created without its configs: %+v", rt)
		}
	}
	wantCodes(t, "CreateTopics", got, map[string]int16{"a2": 0, "b2": topicDenied})
	if h.b.Topic("a2") == nil || h.b.Topic("b2") != nil {
		t.Errorf("CreateTopics: a2 exists %v, b2 exists %v; want only a2", h.b.Topic("a2") != nil, h.b.Topic("b2") != nil)
	}

	cp := kmsg.NewPtrCreatePartitionsRequest()
	cp.SetVersion(3)
	cp.Topics = []kmsg.CreatePartitionsRequestTopic{{Topic: "a", Count: 2}, {Topic: "b", Count: 2}}
	got = codesOf(rt[*kmsg.CreatePartitionsResponse](h, cp).Topics, func(it kmsg.CreatePartitionsResponseTopic) (string, int16) { return it.Topic, it.ErrorCode })
	wantCodes(t, "CreatePartitions", got, map[string]int16{"a": 0, "b": topicDenied})
	if na, nb := len(h.b.Topic("a").Partitions), len(h.b.Topic("b").Partitions); na != 2 || nb != 1 {
		t.Errorf("CreatePartitions: a has %d partitions, b %d; want 2 and 1", na, nb)
	}

	dt := kmsg.NewPtrDeleteTopicsRequest()
	dt.SetVersion(5)
	dt.TopicNames = []string{"a2", "b"}
	got = map[string]int16{}
	for _, rt := range rt[*kmsg.DeleteTopicsResponse](h, dt).Topics {
		got[derefString(rt.Topic)] = rt.ErrorCode
	}
	wantCodes(t, "DeleteTopics", got, map[string]int16{"a2": 0, "b": topicDenied})
	if h.b.Topic("a2") != nil || h.b.Topic("b") == nil {
		t.Errorf("DeleteTopics: a2 left %v, b gone %v", h.b.Topic("a2") != nil, h.b.Topic("b") == nil)
	}

	// By id (v6): b's name stays hidden from who may not describe it; an
	// id no topic has is UNKNOWN_TOPIC_ID.
	dt = kmsg.NewPtrDeleteTopicsRequest()
	dt.SetVersion(6)
	bID := h.b.Topic("b").ID
	dt.Topics = []kmsg.DeleteTopicsRequestTopic{{TopicID: bID}, {TopicID: [16]byte{7}}}
	for _, rt := range rt[*kmsg.DeleteTopicsResponse](h, dt).Topics {
		switch {
		case rt.TopicID == bID && (rt.ErrorCode != topicDenied || rt.Topic != nil):
			t.Errorf("DeleteTopics of b by id: %s named %v, want TOPIC_AUTHORIZATION_FAILED unnamed", kerr.ErrorForCode(rt.ErrorCode), derefString(rt.Topic))
		case rt.TopicID != bID && rt.ErrorCode != kerr.UnknownTopicID.Code:
			t.Errorf("DeleteTopics of an unknown id: %v", kerr.ErrorForCode(rt.ErrorCode))
		}
	}
}

// TestAuthorizeConfigParts: config resources are answered per resource:
// a topic's refusal is TOPIC_, the broker's CLUSTER_AUTHORIZATION_FAILED,
// and the allowed change is made.
func TestAuthorizeConfigParts(t *testing.T) {
	h := authzHarness(t)
	type res = struct {
		typ  kmsg.ConfigResourceType
		name string
	}
	want := map[string]int16{"a": 0, "b": topicDenied, "1": kerr.ClusterAuthorizationFailed.Code}
	all := []res{{kmsg.ConfigResourceTypeTopic, "a"}, {kmsg.ConfigResourceTypeTopic, "b"}, {kmsg.ConfigResourceTypeBroker, "1"}}

	ia := kmsg.NewPtrIncrementalAlterConfigsRequest()
	ia.SetVersion(1)
	v := "1234"
	for _, r := range all[:2] {
		ia.Resources = append(ia.Resources, kmsg.IncrementalAlterConfigsRequestResource{ResourceType: r.typ, ResourceName: r.name,
			Configs: []kmsg.IncrementalAlterConfigsRequestResourceConfig{{Name: "retention.ms", Value: &v}}})
	}
	got := map[string]int16{}
	for _, rr := range rt[*kmsg.IncrementalAlterConfigsResponse](h, ia).Resources {
		got[rr.ResourceName] = rr.ErrorCode
	}
	wantCodes(t, "IncrementalAlterConfigs", got, map[string]int16{"a": 0, "b": topicDenied})
	if a, b := h.b.Topic("a").Configs["retention.ms"], h.b.Topic("b").Configs["retention.ms"]; a != v || b != "" {
		t.Errorf("retention.ms: a %q, b %q; want a %s and b unset", a, b, v)
	}

	ac := kmsg.NewPtrAlterConfigsRequest()
	ac.SetVersion(2)
	v2 := "5678"
	for _, r := range all {
		ac.Resources = append(ac.Resources, kmsg.AlterConfigsRequestResource{ResourceType: r.typ, ResourceName: r.name,
			Configs: []kmsg.AlterConfigsRequestResourceConfig{{Name: "retention.ms", Value: &v2}}})
	}
	got = codesOf(rt[*kmsg.AlterConfigsResponse](h, ac).Resources, func(it kmsg.AlterConfigsResponseResource) (string, int16) { return it.ResourceName, it.ErrorCode })
	wantCodes(t, "AlterConfigs", got, want)
	if a := h.b.Topic("a").Configs["retention.ms"]; a != v2 {
		t.Errorf("AlterConfigs: a's retention.ms %q, want %s", a, v2)
	}

	dc := kmsg.NewPtrDescribeConfigsRequest()
	dc.SetVersion(4)
	for _, r := range all {
		dc.Resources = append(dc.Resources, kmsg.DescribeConfigsRequestResource{ResourceType: r.typ, ResourceName: r.name})
	}
	got = map[string]int16{}
	for _, rr := range rt[*kmsg.DescribeConfigsResponse](h, dc).Resources {
		got[rr.ResourceName] = rr.ErrorCode
		if (rr.ErrorCode == 0) != (len(rr.Configs) > 0) {
			t.Errorf("DescribeConfigs %s: error %d with %d configs", rr.ResourceName, rr.ErrorCode, len(rr.Configs))
		}
	}
	wantCodes(t, "DescribeConfigs", got, want)
}

// TestAuthorizeGroupParts: offsets are committed, fetched and deleted for
// the allowed topic only; many-group requests answer each group.
func TestAuthorizeGroupParts(t *testing.T) {
	h := authzHarness(t)
	commit := func(group string) map[string]int16 {
		oc := kmsg.NewPtrOffsetCommitRequest()
		oc.SetVersion(8)
		oc.Group, oc.Generation = group, -1
		for _, n := range []string{"a", "b"} {
			oc.Topics = append(oc.Topics, kmsg.OffsetCommitRequestTopic{Topic: n, Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0, Offset: 1, LeaderEpoch: -1}}})
		}
		got := map[string]int16{}
		for _, rt := range rt[*kmsg.OffsetCommitResponse](h, oc).Topics {
			got[rt.Topic] = rt.Partitions[0].ErrorCode
		}
		return got
	}
	wantCodes(t, "OffsetCommit", commit("g"), map[string]int16{"a": 0, "b": topicDenied})
	wantCodes(t, "OffsetCommit of group h", commit("h"), map[string]int16{"a": groupDenied, "b": groupDenied})

	of := kmsg.NewPtrOffsetFetchRequest()
	of.SetVersion(7)
	of.Group = "g"
	of.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: "a", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}
	got, offsets := map[string]int16{}, map[string]int64{}
	for _, rt := range rt[*kmsg.OffsetFetchResponse](h, of).Topics {
		got[rt.Topic], offsets[rt.Topic] = rt.Partitions[0].ErrorCode, rt.Partitions[0].Offset
	}
	wantCodes(t, "OffsetFetch v7", got, map[string]int16{"a": 0, "b": topicDenied})
	if offsets["a"] != 1 || offsets["b"] != -1 {
		t.Errorf("OffsetFetch v7 offsets %v, want a 1 (committed) and b -1", offsets)
	}

	// b's offset, committed by a peer, is not listed to alice asking for
	// all topics.
	h.asPeer(func() { commit("g") })
	of8 := kmsg.NewPtrOffsetFetchRequest()
	of8.SetVersion(8)
	of8.Groups = []kmsg.OffsetFetchRequestGroup{
		{Group: "g", Topics: []kmsg.OffsetFetchRequestGroupTopic{{Topic: "a", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}},
		{Group: "h", Topics: []kmsg.OffsetFetchRequestGroupTopic{{Topic: "a", Partitions: []int32{0}}}},
	}
	got = map[string]int16{}
	for _, g := range rt[*kmsg.OffsetFetchResponse](h, of8).Groups {
		got[g.Group] = g.ErrorCode
		for _, rt := range g.Topics {
			got[g.Group+"/"+rt.Topic] = rt.Partitions[0].ErrorCode
		}
	}
	wantCodes(t, "OffsetFetch v8", got, map[string]int16{"g": 0, "g/a": 0, "g/b": topicDenied, "h": groupDenied})
	of8.Groups = []kmsg.OffsetFetchRequestGroup{{Group: "g"}}
	var listed []string
	for _, rt := range rt[*kmsg.OffsetFetchResponse](h, of8).Groups[0].Topics {
		listed = append(listed, rt.Topic)
	}
	if len(listed) != 1 || listed[0] != "a" {
		t.Errorf("OffsetFetch v8 of all topics lists %v, want only a", listed)
	}

	od := kmsg.NewPtrOffsetDeleteRequest()
	od.Group = "g"
	od.Topics = []kmsg.OffsetDeleteRequestTopic{{Topic: "a", Partitions: []kmsg.OffsetDeleteRequestTopicPartition{{Partition: 0}}}, {Topic: "b", Partitions: []kmsg.OffsetDeleteRequestTopicPartition{{Partition: 0}}}}
	got = codesOf(rt[*kmsg.OffsetDeleteResponse](h, od).Topics, func(it kmsg.OffsetDeleteResponseTopic) (string, int16) { return it.Topic, it.Partitions[0].ErrorCode })
	wantCodes(t, "OffsetDelete", got, map[string]int16{"a": 0, "b": topicDenied})

	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.SetVersion(4)
	fc.CoordinatorKeys = []string{"g", "h"}
	got = codesOf(rt[*kmsg.FindCoordinatorResponse](h, fc).Coordinators, func(it kmsg.FindCoordinatorResponseCoordinator) (string, int16) { return it.Key, it.ErrorCode })
	wantCodes(t, "FindCoordinator", got, map[string]int16{"g": 0, "h": groupDenied})

	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.SetVersion(5)
	dg.Groups = []string{"g", "h"}
	got = codesOf(rt[*kmsg.DescribeGroupsResponse](h, dg).Groups, func(it kmsg.DescribeGroupsResponseGroup) (string, int16) { return it.Group, it.ErrorCode })
	wantCodes(t, "DescribeGroups", got, map[string]int16{"g": 0, "h": groupDenied})

	cd := kmsg.NewPtrConsumerGroupDescribeRequest()
	cd.Groups = []string{"g", "h"}
	got = codesOf(rt[*kmsg.ConsumerGroupDescribeResponse](h, cd).Groups, func(it kmsg.ConsumerGroupDescribeResponseGroup) (string, int16) { return it.Group, it.ErrorCode })
	if got["h"] != groupDenied || got["g"] == groupDenied || len(got) != 2 {
		t.Errorf("ConsumerGroupDescribe: %v, want h refused and g answered", got)
	}

	del := kmsg.NewPtrDeleteGroupsRequest()
	del.SetVersion(2)
	del.Groups = []string{"g", "h"}
	got = codesOf(rt[*kmsg.DeleteGroupsResponse](h, del).Groups, func(it kmsg.DeleteGroupsResponseGroup) (string, int16) { return it.Group, it.ErrorCode })
	wantCodes(t, "DeleteGroups", got, map[string]int16{"g": 0, "h": groupDenied})
}

// TestAuthorizeTxnParts: AddPartitionsToTxn with a refused topic adds
// none (the allowed one OPERATION_NOT_ATTEMPTED); TxnOffsetCommit commits
// the allowed topic; DescribeTransactions and ListTransactions answer
// only the allowed transactional id.
func TestAuthorizeTxnParts(t *testing.T) {
	h := authzHarness(t)
	h.asPeer(func() {
		_, code := h.initTxn("ty", 60000)
		must(t, "init ty", code)
	})
	x, code := h.initTxn("tx", 60000)
	must(t, "init tx", code)
	add := kmsg.NewPtrAddPartitionsToTxnRequest()
	add.SetVersion(3)
	add.TransactionalID, add.ProducerID, add.ProducerEpoch = x.id, x.pid, x.epoch
	add.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: "a", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}
	got := map[string]int16{}
	for _, rt := range rt[*kmsg.AddPartitionsToTxnResponse](h, add).Topics {
		got[rt.Topic] = rt.Partitions[0].ErrorCode
	}
	wantCodes(t, "AddPartitionsToTxn", got, map[string]int16{"a": kerr.OperationNotAttempted.Code, "b": topicDenied})
	if n := len(h.txnState("tx").Partitions); n != 0 {
		t.Errorf("%d partitions in the transaction after a refused AddPartitionsToTxn", n)
	}
	must(t, "add a alone", x.add("a", 0))

	got = codesOf(x.offsets("g", 1, "a", "b").Topics, func(t kmsg.TxnOffsetCommitResponseTopic) (string, int16) {
		return t.Topic, t.Partitions[0].ErrorCode
	})
	wantCodes(t, "TxnOffsetCommit", got, map[string]int16{"a": 0, "b": topicDenied})

	dt := kmsg.NewPtrDescribeTransactionsRequest()
	dt.TransactionalIDs = []string{"tx", "ty"}
	got = codesOf(rt[*kmsg.DescribeTransactionsResponse](h, dt).TransactionStates, func(it kmsg.DescribeTransactionsResponseTransactionState) (string, int16) {
		return it.TransactionalID, it.ErrorCode
	})
	wantCodes(t, "DescribeTransactions", got, map[string]int16{"tx": 0, "ty": kerr.TransactionalIDAuthorizationFailed.Code})

	var listed []string
	for _, s := range rt[*kmsg.ListTransactionsResponse](h, kmsg.NewPtrListTransactionsRequest()).TransactionStates {
		listed = append(listed, s.TransactionalID)
	}
	if len(listed) != 1 || listed[0] != "tx" {
		t.Errorf("ListTransactions lists %v, want only tx", listed)
	}
}

// TestAuthorizeClusterWhole: what Kafka checks on the cluster is refused
// whole, and DescribeCluster is not checked.
func TestAuthorizeClusterWhole(t *testing.T) {
	h := authzHarness(t)
	el := kmsg.NewPtrElectLeadersRequest()
	el.SetVersion(2)
	el.Topics = []kmsg.ElectLeadersRequestTopic{{Topic: "a", Partitions: []int32{0}}}
	resp := rt[*kmsg.ElectLeadersResponse](h, el)
	if resp.ErrorCode != kerr.ClusterAuthorizationFailed.Code || resp.Topics[0].Partitions[0].ErrorCode != kerr.ClusterAuthorizationFailed.Code {
		t.Errorf("ElectLeaders: %d / %+v, want CLUSTER_AUTHORIZATION_FAILED", resp.ErrorCode, resp.Topics)
	}
	ld := kmsg.NewPtrDescribeLogDirsRequest()
	ld.SetVersion(4)
	if lr := rt[*kmsg.DescribeLogDirsResponse](h, ld); lr.ErrorCode != kerr.ClusterAuthorizationFailed.Code || len(lr.Dirs) > 0 && lr.Dirs[0].Dir != "" {
		t.Errorf("DescribeLogDirs: %d with %d dirs, want CLUSTER_AUTHORIZATION_FAILED and none", lr.ErrorCode, len(lr.Dirs))
	}
	if dc := rt[*kmsg.DescribeClusterResponse](h, kmsg.NewPtrDescribeClusterRequest()); dc.ErrorCode != 0 || len(dc.Brokers) != 1 {
		t.Errorf("DescribeCluster: error %d, %d brokers; want it answered", dc.ErrorCode, len(dc.Brokers))
	}
}

// TestAuthorizeCreateWithoutDescribeConfigs: CREATE on the cluster
// creates any topic, but its configs, partition count and replication
// factor are answered only to who may DESCRIBE_CONFIGS it (KIP-525).
func TestAuthorizeCreateWithoutDescribeConfigs(t *testing.T) {
	h := authzHarness(t)
	a := &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeCluster), ResourceName: cluster.ClusterResource, PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
		Principal: "User:carol", Host: "*", Operation: int8(kmsg.ACLOperationCreate), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	h.b.meta.ACLs[cluster.ACLKey(a)] = a
	h.principal = "User:carol"
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.SetVersion(7)
	ct.Topics = []kmsg.CreateTopicsRequestTopic{{Topic: "c", NumPartitions: 2, ReplicationFactor: 1}}
	c := rt[*kmsg.CreateTopicsResponse](h, ct).Topics[0]
	if c.ErrorCode != 0 || h.b.Topic("c") == nil {
		t.Fatalf("carol creates c: %v", kerr.ErrorForCode(c.ErrorCode))
	}
	if c.ConfigErrorCode != topicDenied || len(c.Configs) != 0 || c.NumPartitions != -1 || c.ReplicationFactor != -1 {
		t.Errorf("c's answer to carol: config error %d, %d configs, %d partitions, rf %d; want TOPIC_AUTHORIZATION_FAILED, none, -1, -1",
			c.ConfigErrorCode, len(c.Configs), c.NumPartitions, c.ReplicationFactor)
	}
}

// TestAuthorizeSubscription: a KIP-848 heartbeat subscribing to a topic
// the member may not describe is refused whole.
func TestAuthorizeSubscription(t *testing.T) {
	h := authzHarness(t)
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Group, hb.MemberID, hb.RebalanceTimeoutMillis = "g", "m", 60000
	hb.SubscribedTopicNames = []string{"a", "b"}
	if code := rt[*kmsg.ConsumerGroupHeartbeatResponse](h, hb).ErrorCode; code != topicDenied {
		t.Errorf("heartbeat subscribing to a and b: %v, want TOPIC_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}
	hb.SubscribedTopicNames = []string{"a"}
	if code := rt[*kmsg.ConsumerGroupHeartbeatResponse](h, hb).ErrorCode; code == topicDenied || code == groupDenied {
		t.Errorf("heartbeat subscribing to a: %v", kerr.ErrorForCode(code))
	}

	// A regex resolves to the topics the member may describe, as Kafka's
	// filterTopicDescribeAuthorizedTopics: b matches but is not assigned.
	re := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	re.SetVersion(1)
	re.Group, re.MemberID, re.RebalanceTimeoutMillis = "g", "r", 60000
	re.SubscribedTopicRegex = kmsg.StringPtr("[ab]")
	resp := rt[*kmsg.ConsumerGroupHeartbeatResponse](h, re)
	if resp.ErrorCode != 0 || resp.Assignment == nil {
		t.Fatalf("regex heartbeat: %v, assignment %v", kerr.ErrorForCode(resp.ErrorCode), resp.Assignment)
	}
	for _, at := range resp.Assignment.Topics {
		if at.TopicID != h.b.topics["a"].ID {
			t.Errorf("regex [ab] assigned topic %x with %v; only a may be described", at.TopicID, at.Partitions)
		}
	}
}

// TestAuthorizeShareGroups: the share group APIs need READ on the group
// (DESCRIBE to describe its offsets, DELETE to delete them) and READ on
// each topic (DESCRIBE to subscribe or describe), as Kafka 4's KafkaApis:
// a refused group fails the request, a refused topic only its parts.
func TestAuthorizeShareGroups(t *testing.T) {
	h := authzHarness(t)
	ida, idb := h.b.topics["a"].ID, h.b.topics["b"].ID
	heartbeat := func(group string, topics ...string) int16 {
		hb := kmsg.NewPtrShareGroupHeartbeatRequest()
		hb.SetVersion(1)
		hb.GroupID, hb.MemberID, hb.SubscribedTopicNames = group, "m", topics
		return rt[*kmsg.ShareGroupHeartbeatResponse](h, hb).ErrorCode
	}
	if code := heartbeat("h", "a"); code != groupDenied {
		t.Errorf("heartbeat to group h: %v, want GROUP_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}
	if code := heartbeat("g", "a", "b"); code != topicDenied {
		t.Errorf("heartbeat subscribing to a and b: %v, want TOPIC_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}
	if code := heartbeat("g", "a"); code != 0 {
		t.Fatalf("heartbeat subscribing to a: %v", kerr.ErrorForCode(code))
	}

	fetch := func(group string) *kmsg.ShareFetchResponse {
		sf := kmsg.NewPtrShareFetchRequest()
		sf.SetVersion(1)
		sf.GroupID, sf.MemberID, sf.MaxBytes, sf.MaxRecords = kmsg.StringPtr(group), kmsg.StringPtr("m"), 1<<20, 10
		for _, id := range [][16]byte{ida, idb} {
			sf.Topics = append(sf.Topics, kmsg.ShareFetchRequestTopic{TopicID: id, Partitions: []kmsg.ShareFetchRequestTopicPartition{{Partition: 0}}})
		}
		return rt[*kmsg.ShareFetchResponse](h, sf)
	}
	if code := fetch("h").ErrorCode; code != groupDenied {
		t.Errorf("ShareFetch of group h: %v, want GROUP_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}
	sr := fetch("g")
	got := codesOf(sr.Topics, func(it kmsg.ShareFetchResponseTopic) (string, int16) {
		return h.b.nameOf("", it.TopicID), it.Partitions[0].ErrorCode
	})
	wantCodes(t, "ShareFetch", got, map[string]int16{"a": 0, "b": topicDenied})

	ack := kmsg.NewPtrShareAcknowledgeRequest()
	ack.SetVersion(1)
	ack.GroupID, ack.MemberID, ack.ShareSessionEpoch = kmsg.StringPtr("g"), kmsg.StringPtr("m"), 1
	for _, id := range [][16]byte{ida, idb} {
		ack.Topics = append(ack.Topics, kmsg.ShareAcknowledgeRequestTopic{TopicID: id, Partitions: []kmsg.ShareAcknowledgeRequestTopicPartition{{Partition: 0,
			AcknowledgementBatches: []kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch{{FirstOffset: 0, LastOffset: 0, AcknowledgeTypes: []int8{1}}}}}})
	}
	ar := rt[*kmsg.ShareAcknowledgeResponse](h, ack)
	got = codesOf(ar.Topics, func(it kmsg.ShareAcknowledgeResponseTopic) (string, int16) {
		return h.b.nameOf("", it.TopicID), it.Partitions[0].ErrorCode
	})
	wantCodes(t, "ShareAcknowledge", got, map[string]int16{"a": 0, "b": topicDenied})

	dso := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	dso.Groups = []kmsg.DescribeShareGroupOffsetsRequestGroup{
		{GroupID: "g", Topics: []kmsg.DescribeShareGroupOffsetsRequestGroupTopic{{Topic: "a", Partitions: []int32{0}}, {Topic: "b", Partitions: []int32{0}}}},
		{GroupID: "h", Topics: []kmsg.DescribeShareGroupOffsetsRequestGroupTopic{{Topic: "a", Partitions: []int32{0}}}},
	}
	got = map[string]int16{}
	for _, g := range rt[*kmsg.DescribeShareGroupOffsetsResponse](h, dso).Groups {
		got[g.GroupID] = g.ErrorCode
		for _, rt := range g.Topics {
			got[g.GroupID+"/"+rt.Topic] = rt.Partitions[0].ErrorCode
		}
	}
	wantCodes(t, "DescribeShareGroupOffsets", got, map[string]int16{"g": 0, "g/a": 0, "g/b": topicDenied, "h": groupDenied})

	alter := kmsg.NewPtrAlterShareGroupOffsetsRequest()
	alter.GroupID = "h"
	if code := rt[*kmsg.AlterShareGroupOffsetsResponse](h, alter).ErrorCode; code != groupDenied {
		t.Errorf("AlterShareGroupOffsets of group h: %v, want GROUP_AUTHORIZATION_FAILED", kerr.ErrorForCode(code))
	}
	leave := kmsg.NewPtrShareGroupHeartbeatRequest()
	leave.SetVersion(1)
	leave.GroupID, leave.MemberID, leave.MemberEpoch = "g", "m", -1
	must(t, "leave", rt[*kmsg.ShareGroupHeartbeatResponse](h, leave).ErrorCode)
	del := kmsg.NewPtrDeleteShareGroupOffsetsRequest()
	del.GroupID = "g"
	del.Topics = []kmsg.DeleteShareGroupOffsetsRequestTopic{{Topic: "a"}, {Topic: "b"}}
	dr := rt[*kmsg.DeleteShareGroupOffsetsResponse](h, del)
	got = codesOf(dr.Topics, func(it kmsg.DeleteShareGroupOffsetsResponseTopic) (string, int16) { return it.Topic, it.ErrorCode })
	if got["b"] != topicDenied || got["a"] == topicDenied {
		t.Errorf("DeleteShareGroupOffsets of a and b: %v (top level %v), want b refused and a not", got, kerr.ErrorForCode(dr.ErrorCode))
	}
}
