//go:build !js

package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/wire"
)

// TestAuthorizeProduceSplit: a Produce for two topics, one of which the
// principal may not write, appends to the other and answers the refused
// one TOPIC_AUTHORIZATION_FAILED; Metadata of both lists only the
// writable one as known, and a peer's request (no principal) passes.
func TestAuthorizeProduceSplit(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("a", 1, nil)
	h.createTopic("b", 1, nil)
	h.b.cfg.Authorizer = &cluster.Authorizer{}
	allow := &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeTopic), ResourceName: "a", PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
		Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationWrite), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	h.b.meta.ACLs = map[string]*cluster.ACL{cluster.ACLKey(allow): allow}
	as := func(principal string, req kmsg.Request) kmsg.Response {
		t.Helper()
		h.corr++
		h.reset()
		h.b.Handle(h.now, Request{Conn: 1, Header: wire.Header{Key: req.Key(), Version: req.GetVersion(), CorrelationID: h.corr}, Msg: req, Principal: principal})
		if err := h.b.Commit(); err != nil {
			t.Fatal(err)
		}
		if len(h.answers()) != 1 {
			t.Fatalf("%d answers", len(h.answers()))
		}
		return h.answers()[0].Msg
	}
	req := produceReq("a", 0, 1, batchOf("x"))
	req.Topics = append(req.Topics, produceReq("b", 0, 1, batchOf("y")).Topics...)
	resp := as("User:alice", req).(*kmsg.ProduceResponse)
	codes := map[string]int16{}
	for _, rt := range resp.Topics {
		codes[rt.Topic] = rt.Partitions[0].ErrorCode
	}
	if len(codes) != 2 || codes["a"] != 0 || codes["b"] != kerr.TopicAuthorizationFailed.Code {
		t.Errorf("alice's Produce to a and b: %v, want a written and b TOPIC_AUTHORIZATION_FAILED", codes)
	}
	if end := h.b.Topic("a").Partitions[0].Log().EndOffset(); end != 1 {
		t.Errorf("a ends at %d, want 1", end)
	}
	if end := h.b.Topic("b").Partitions[0].Log().EndOffset(); end != 0 {
		t.Errorf("b ends at %d, want 0: the refused batch was written", end)
	}
	// A peer's request carries no principal and is not checked.
	peer := as("", produceReq("b", 0, 1, batchOf("z"))).(*kmsg.ProduceResponse)
	if code := peer.Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Errorf("a request without a principal: error %d", code)
	}
}
