package group_test

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// regexBeat heartbeats a member subscribed by regex (re is sent when set),
// reporting what it owns; it returns the answer and what it now owns.
func (h *harness) regexBeat(t *testing.T, id string, epoch int32, re *string, owned []kmsg.ConsumerGroupHeartbeatRequestTopic) *kmsg.ConsumerGroupHeartbeatResponse {
	t.Helper()
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Version, req.Group, req.MemberID, req.MemberEpoch = 1, "g", id, epoch
	req.RebalanceTimeoutMillis, req.SubscribedTopicRegex, req.Topics = 30000, re, owned
	return h.do(id, req).(*kmsg.ConsumerGroupHeartbeatResponse)
}

// TestConsumerGroupRegex: a regex subscription resolves against the
// topics by whole name, picks up a topic created later and drops a
// deleted one, each time at a new group epoch.
func TestConsumerGroupRegex(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "orders-eu", 2)
	topicReq(t, h, "orders-us", 1)
	topicReq(t, h, "xorders-eu", 1) // matches only an unanchored regex
	re := "orders-.*"
	resp := h.regexBeat(t, "m", 0, &re, nil)
	wantCode(t, "join", resp.ErrorCode, nil)
	byID := func(id [16]byte) string {
		for _, n := range []string{"orders-eu", "orders-us", "orders-apac", "xorders-eu"} {
			if tp := h.b.Topic(n); tp != nil && tp.ID == id {
				return n
			}
		}
		return "?"
	}
	owned := func(resp *kmsg.ConsumerGroupHeartbeatResponse) ([]kmsg.ConsumerGroupHeartbeatRequestTopic, []string) {
		var topics []kmsg.ConsumerGroupHeartbeatRequestTopic
		var names []string
		for _, at := range resp.Assignment.Topics {
			topics = append(topics, kmsg.ConsumerGroupHeartbeatRequestTopic{TopicID: at.TopicID, Partitions: at.Partitions})
			for _, p := range at.Partitions {
				names = append(names, byID(at.TopicID)+"/"+string(rune('0'+p)))
			}
		}
		slices.Sort(names)
		return topics, names
	}
	topics, names := owned(resp)
	if want := []string{"orders-eu/0", "orders-eu/1", "orders-us/0"}; !slices.Equal(names, want) || resp.MemberEpoch != 1 {
		t.Fatalf("epoch %d owns %v, want epoch 1 owning %v", resp.MemberEpoch, names, want)
	}

	topicReq(t, h, "orders-apac", 1)
	resp = h.regexBeat(t, "m", 1, nil, topics)
	wantCode(t, "heartbeat", resp.ErrorCode, nil)
	if resp.Assignment == nil {
		t.Fatal("no new assignment after orders-apac was created")
	}
	topics, names = owned(resp)
	if want := []string{"orders-apac/0", "orders-eu/0", "orders-eu/1", "orders-us/0"}; !slices.Equal(names, want) || resp.MemberEpoch != 2 {
		t.Fatalf("epoch %d owns %v, want epoch 2 owning %v", resp.MemberEpoch, names, want)
	}

	del := kmsg.NewPtrDeleteTopicsRequest()
	name := "orders-us"
	del.Topics = []kmsg.DeleteTopicsRequestTopic{{Topic: &name}}
	del.TopicNames = []string{name}
	wantCode(t, "delete", h.do("admin", del).(*kmsg.DeleteTopicsResponse).Topics[0].ErrorCode, nil)
	resp = h.regexBeat(t, "m", 2, nil, topics) // revoke orders-us/0 first
	if resp.MemberEpoch != 2 {
		t.Fatalf("revoking orders-us: epoch %d, want 2", resp.MemberEpoch)
	}
	resp = h.regexBeat(t, "m", 2, nil, topics) // its topic id no longer names a topic: released
	if resp.MemberEpoch != 3 {
		t.Fatalf("after orders-us was deleted: epoch %d, want 3", resp.MemberEpoch)
	}

	d := kmsg.NewPtrConsumerGroupDescribeRequest()
	d.Groups = []string{"g"}
	dm := h.do("c", d).(*kmsg.ConsumerGroupDescribeResponse).Groups[0].Members[0]
	if dm.SubscribedTopicRegex == nil || *dm.SubscribedTopicRegex != re || !slices.Equal(dm.SubscribedTopics, []string{"orders-apac", "orders-eu"}) {
		t.Fatalf("describe: regex %v topics %v", dm.SubscribedTopicRegex, dm.SubscribedTopics)
	}

	bad := "orders-("
	wantCode(t, "bad regex", h.regexBeat(t, "n", 0, &bad, nil).ErrorCode, kerr.InvalidRegularExpression)
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Version, req.Group, req.MemberID, req.SubscribedTopicRegex, req.SubscribedTopicNames = 1, "g", "n", &re, []string{"orders-eu"}
	wantCode(t, "names and regex", h.do("n", req).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode, kerr.InvalidRequest)
}

// TestConsumerGroupRegexInternal: a regex naming an internal topic
// resolves to it, as Kafka 4 resolves regexes against every topic (the
// kgo suite's Test848RegexBrokerResolves subscribes to
// regexp.QuoteMeta("__consumer_offsets")).
func TestConsumerGroupRegexInternal(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "orders", 1)
	re := `orders|__consumer_offsets`
	resp := h.regexBeat(t, "m", 0, &re, nil) // the group's first write creates __consumer_offsets
	wantCode(t, "join", resp.ErrorCode, nil)
	resp = h.regexBeat(t, "m", resp.MemberEpoch, nil, nil)
	wantCode(t, "heartbeat", resp.ErrorCode, nil)
	d := kmsg.NewPtrConsumerGroupDescribeRequest()
	d.Groups = []string{"g"}
	dm := h.do("c", d).(*kmsg.ConsumerGroupDescribeResponse).Groups[0].Members[0]
	if want := []string{"__consumer_offsets", "orders"}; !slices.Equal(dm.SubscribedTopics, want) {
		t.Fatalf("regex %q resolves to %v, want %v", re, dm.SubscribedTopics, want)
	}
	offsets := h.b.Topic("__consumer_offsets")
	var n int
	for _, at := range dm.Assignment.TopicPartitions {
		if at.TopicID == offsets.ID {
			n = len(at.Partitions)
		}
	}
	if n != 5 {
		t.Errorf("%d partitions of __consumer_offsets assigned, want all 5", n)
	}
}
