package quorum

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// request sends req to the active controller and waits for its answer.
func (h *harness) request(req kmsg.Request) kmsg.Response {
	h.t.Helper()
	var resp kmsg.Response
	if h.submit(req, func(r kmsg.Response) { resp = r }) == 0 {
		h.fatalf("no controller for %s", kmsg.NameForKey(req.Key()))
	}
	h.runUntil(100, kmsg.NameForKey(req.Key())+" answered", func() bool { return resp != nil })
	return resp
}

func createPartitionsReq(validateOnly bool, topics ...kmsg.CreatePartitionsRequestTopic) *kmsg.CreatePartitionsRequest {
	req := kmsg.NewPtrCreatePartitionsRequest()
	req.SetVersion(3)
	req.Topics, req.ValidateOnly = topics, validateOnly
	return req
}

func growTo(topic string, count int32, assignment ...[]int32) kmsg.CreatePartitionsRequestTopic {
	t := kmsg.NewCreatePartitionsRequestTopic()
	t.Topic, t.Count = topic, count
	for _, reps := range assignment {
		t.Assignment = append(t.Assignment, kmsg.CreatePartitionsRequestTopicAssignment{Replicas: reps})
	}
	return t
}

// checkPlacement checks every partition of topic follows Place from one
// start: partition i's j-th replica on broker (start+i+j) mod n.
func checkPlacement(t *testing.T, tp *cluster.Topic, brokers []int32) {
	t.Helper()
	start := slices.Index(brokers, tp.Partitions[0].Replicas[0])
	for i, p := range tp.Partitions {
		for j, r := range p.Replicas {
			if want := brokers[(start+i+j)%len(brokers)]; r != want {
				t.Errorf("%s-%d replica %d = %d, want (start+i+j) mod n = %d", tp.Name, i, j, r, want)
			}
		}
		if p.Leader != p.Replicas[0] || !slices.Equal(p.ISR, p.Replicas) {
			t.Errorf("%s-%d: %+v", tp.Name, i, p)
		}
	}
}

func TestCreatePartitionsContinuesPlacement(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("orders", 2, 2, nil)
	resp := h.request(createPartitionsReq(false, growTo("orders", 7))).(*kmsg.CreatePartitionsResponse)
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("response: %+v", resp.Topics)
	}
	h.run(3)
	h.agree()
	tp := h.controller().Image().Topics["orders"]
	if len(tp.Partitions) != 7 {
		t.Fatalf("%d partitions, want 7", len(tp.Partitions))
	}
	checkPlacement(t, tp, []int32{1, 2, 3})
	for i, p := range tp.Partitions[2:] {
		if p.LeaderEpoch != 0 || p.PartitionEpoch != 0 {
			t.Errorf("new partition %d at epochs %d/%d", i+2, p.LeaderEpoch, p.PartitionEpoch)
		}
	}
}

func TestCreatePartitionsAnswersAsKafka(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 3, 2, nil)
	for _, tc := range []struct {
		name     string
		req      *kmsg.CreatePartitionsRequest
		codes    []int16
		messages []string
	}{
		{"unknown topic", createPartitionsReq(false, growTo("nope", 4)),
			[]int16{kerr.UnknownTopicOrPartition.Code}, []string{""}},
		{"same count", createPartitionsReq(false, growTo("t", 3)),
			[]int16{kerr.InvalidPartitions.Code}, []string{"Topic already has 3 partition(s)."}},
		{"shrink", createPartitionsReq(false, growTo("t", 2)),
			[]int16{kerr.InvalidPartitions.Code}, []string{"The topic t currently has 3 partition(s); 2 would not be an increase."}},
		{"too many", createPartitionsReq(false, growTo("t", cluster.MaxPartitions+1)),
			[]int16{kerr.InvalidPartitions.Code}, []string{"A topic may have at most 10000 partitions."}},
		{"assignments short", createPartitionsReq(false, growTo("t", 5, []int32{1, 2})),
			[]int16{kerr.InvalidReplicaAssignment.Code}, []string{"Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified."}},
		{"unregistered broker", createPartitionsReq(false, growTo("t", 4, []int32{1, 9})),
			[]int16{kerr.InvalidReplicaAssignment.Code}, []string{"The manual partition assignment includes broker 9, but no such broker is registered."}},
		{"replica twice", createPartitionsReq(false, growTo("t", 4, []int32{2, 2})),
			[]int16{kerr.InvalidReplicaAssignment.Code}, []string{"The manual partition assignment includes the broker 2 more than once."}},
		{"other replication factor", createPartitionsReq(false, growTo("t", 4, []int32{1, 2, 3})),
			[]int16{kerr.InvalidReplicaAssignment.Code}, []string{"The manual partition assignment includes a partition with 3 replica(s), but this is not consistent with previous partitions, which have 2 replica(s)."}},
		{"named twice", createPartitionsReq(false, growTo("t", 4), growTo("t", 5)),
			[]int16{kerr.InvalidRequest.Code}, []string{"Duplicate topic name."}},
		{"validate only", createPartitionsReq(true, growTo("t", 6)),
			[]int16{0}, []string{""}},
	} {
		resp := h.request(tc.req).(*kmsg.CreatePartitionsResponse)
		var codes []int16
		var msgs []string
		for _, rt := range resp.Topics {
			codes = append(codes, rt.ErrorCode)
			msgs = append(msgs, deref(rt.ErrorMessage))
		}
		if !slices.Equal(codes, tc.codes) || !slices.Equal(msgs, tc.messages) {
			t.Errorf("%s: codes %v messages %q, want %v %q", tc.name, codes, msgs, tc.codes, tc.messages)
		}
	}
	h.run(3)
	if n := len(h.controller().Image().Topics["t"].Partitions); n != 3 {
		t.Fatalf("refused and validate-only requests changed the topic: %d partitions", n)
	}
	// An explicit assignment is taken as given.
	resp := h.request(createPartitionsReq(false, growTo("t", 5, []int32{3, 1}, []int32{2, 3}))).(*kmsg.CreatePartitionsResponse)
	if resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("assigned: %v", kerr.ErrorForCode(resp.Topics[0].ErrorCode))
	}
	tp := h.controller().Image().Topics["t"]
	if !slices.Equal(tp.Partitions[3].Replicas, []int32{3, 1}) || !slices.Equal(tp.Partitions[4].Replicas, []int32{2, 3}) || tp.Partitions[3].Leader != 3 {
		t.Fatalf("assigned partitions: %+v %+v", tp.Partitions[3], tp.Partitions[4])
	}
}

// Two CreatePartitions of one topic submitted before either commits are
// decided one after the other, as Kafka's controller decides them.
func TestConcurrentCreatePartitionsSerialized(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 1, 3, nil)
	var codes []int16
	var msgs []string
	answer := func(r kmsg.Response) {
		rt := r.(*kmsg.CreatePartitionsResponse).Topics[0]
		codes = append(codes, rt.ErrorCode)
		msgs = append(msgs, deref(rt.ErrorMessage))
	}
	h.submit(createPartitionsReq(false, growTo("t", 3)), answer)
	h.submit(createPartitionsReq(false, growTo("t", 4)), answer)
	h.submit(createPartitionsReq(false, growTo("t", 4)), answer)
	h.runUntil(100, "three answers", func() bool { return len(codes) == 3 })
	if !slices.Equal(codes, []int16{0, 0, kerr.InvalidPartitions.Code}) || msgs[2] != "Topic already has 4 partition(s)." {
		t.Fatalf("codes %v messages %q", codes, msgs)
	}
	h.run(3)
	h.agree()
	tp := h.controller().Image().Topics["t"]
	if len(tp.Partitions) != 4 {
		t.Fatalf("%d partitions, want 4", len(tp.Partitions))
	}
	checkPlacement(t, tp, []int32{1, 2, 3})
}

func deleteTopicsReq(version int16, topics ...kmsg.DeleteTopicsRequestTopic) *kmsg.DeleteTopicsRequest {
	req := kmsg.NewPtrDeleteTopicsRequest()
	req.SetVersion(version)
	if version < 6 {
		for _, t := range topics {
			req.TopicNames = append(req.TopicNames, *t.Topic)
		}
		return req
	}
	req.Topics = topics
	return req
}

func byName(name string) kmsg.DeleteTopicsRequestTopic {
	return kmsg.DeleteTopicsRequestTopic{Topic: &name}
}

func byID(id cluster.UUID) kmsg.DeleteTopicsRequestTopic {
	return kmsg.DeleteTopicsRequestTopic{TopicID: id}
}

func TestDeleteTopics(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	for _, name := range []string{"a", "b", "c", "__consumer_offsets"} {
		h.createTopic(name, 2, 2, nil)
	}
	im := h.controller().Image()
	idA, idB, idC, idCO := im.Topics["a"].ID, im.Topics["b"].ID, im.Topics["c"].ID, im.Topics["__consumer_offsets"].ID
	both := byName("c")
	both.TopicID = idC
	resp := h.request(deleteTopicsReq(6, byName("a"), byID(idB), byName("nope"), byID(cluster.UUID{9}),
		both, kmsg.DeleteTopicsRequestTopic{}, byName("__consumer_offsets"))).(*kmsg.DeleteTopicsResponse)
	want := []struct {
		name string
		id   cluster.UUID
		code int16
	}{
		{"a", idA, 0},
		{"b", idB, 0},
		{"nope", cluster.UUID{}, kerr.UnknownTopicOrPartition.Code},
		{"", cluster.UUID{9}, kerr.UnknownTopicID.Code},
		{"c", idC, kerr.InvalidRequest.Code},
		{"", cluster.UUID{}, kerr.InvalidRequest.Code},
		{"__consumer_offsets", idCO, 0}, // Kafka's controller allows it
	}
	if len(resp.Topics) != len(want) {
		t.Fatalf("%d answers, want %d: %+v", len(resp.Topics), len(want), resp.Topics)
	}
	for i, w := range want {
		rt := resp.Topics[i]
		if deref(rt.Topic) != w.name || cluster.UUID(rt.TopicID) != w.id || rt.ErrorCode != w.code {
			t.Errorf("answer %d: %q %s %v, want %q %s %v", i, deref(rt.Topic), cluster.UUID(rt.TopicID),
				kerr.ErrorForCode(rt.ErrorCode), w.name, w.id, kerr.ErrorForCode(w.code))
		}
	}
	h.run(3)
	h.agree()
	if got := h.controller().Image().TopicNames(); !slices.Equal(got, []string{"c"}) {
		t.Fatalf("topics left %v, want [c]", got)
	}
	// Named twice (by name and by its id): refused once, not deleted.
	resp = h.request(deleteTopicsReq(6, byName("c"), byID(idC))).(*kmsg.DeleteTopicsResponse)
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("duplicate: %+v", resp.Topics)
	}
	// v0-5 name topics only.
	resp = h.request(deleteTopicsReq(5, byName("c"))).(*kmsg.DeleteTopicsResponse)
	if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("v5: %+v", resp.Topics)
	}
	// A topic created again under a deleted name is a new topic.
	h.createTopic("a", 1, 3, nil)
	h.run(3)
	h.agree()
	im = h.controller().Image()
	if got := im.Topics["a"]; got == nil || got.ID == idA || len(got.Partitions) != 1 || got.Partitions[0].LeaderEpoch != 0 {
		t.Fatalf("recreated: %+v", got)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A topic deleted and created again in requests sent back to back, before
// the deletion commits, is created anew, as Kafka's controller (which
// decides from its uncommitted state) creates it.
func TestDeleteThenCreatePipelined(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	h.createTopic("t", 1, 3, nil)
	old := h.controller().Image().Topics["t"].ID
	var deleted, created int16 = -1, -1
	h.submit(deleteTopicsReq(6, byName("t")), func(r kmsg.Response) {
		deleted = r.(*kmsg.DeleteTopicsResponse).Topics[0].ErrorCode
	})
	create := kmsg.NewPtrCreateTopicsRequest()
	ct := kmsg.NewCreateTopicsRequestTopic()
	ct.Topic, ct.NumPartitions, ct.ReplicationFactor = "t", 2, 2
	create.Topics = append(create.Topics, ct)
	h.submit(create, func(r kmsg.Response) { created = r.(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode })
	h.runUntil(100, "both answered", func() bool { return deleted != -1 && created != -1 })
	if deleted != 0 || created != 0 {
		t.Fatalf("delete %v, create %v", kerr.ErrorForCode(deleted), kerr.ErrorForCode(created))
	}
	h.run(3)
	h.agree()
	if tp := h.controller().Image().Topics["t"]; tp == nil || tp.ID == old || len(tp.Partitions) != 2 {
		t.Fatalf("topic after delete and create: %+v", tp)
	}
}

// TestMetadataTopicRefused: the controller refuses to create a topic named
// after its own log, as Kafka's ControllerApis does.
func TestMetadataTopicRefused(t *testing.T) {
	h := threeBrokers(t, scenarioConfig())
	var code int16 = -1
	h.runUntil(200, "CreateTopics answered", func() bool {
		if code == -1 || code == kerr.NotController.Code {
			req := kmsg.NewPtrCreateTopicsRequest()
			rt := kmsg.NewCreateTopicsRequestTopic()
			rt.Topic, rt.NumPartitions, rt.ReplicationFactor = cluster.MetadataTopic, 1, 1
			req.Topics = append(req.Topics, rt)
			code = -2
			if h.submit(req, func(r kmsg.Response) { code = r.(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode }) == 0 {
				code = -1
			}
		}
		return code >= 0 && code != kerr.NotController.Code
	})
	if code != kerr.TopicAuthorizationFailed.Code {
		t.Fatalf("CreateTopics %s: %v, want TOPIC_AUTHORIZATION_FAILED", cluster.MetadataTopic, kerr.ErrorForCode(code))
	}
}
