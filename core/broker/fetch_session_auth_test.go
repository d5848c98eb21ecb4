//go:build !js

package broker

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// TestFetchSessionRechecksACLs: a session's partitions are authorized at
// every fetch, not only when they join it: after READ on the topic is
// removed, an empty incremental fetch answers the topic
// TOPIC_AUTHORIZATION_FAILED, with no records.
func TestFetchSessionRechecksACLs(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batchOf("a")))
	h.b.cfg.Authorizer = &cluster.Authorizer{}
	read := &cluster.ACL{ResourceType: int8(kmsg.ACLResourceTypeTopic), ResourceName: "t", PatternType: int8(kmsg.ACLResourcePatternTypeLiteral),
		Principal: "User:alice", Host: "*", Operation: int8(kmsg.ACLOperationRead), Permission: int8(kmsg.ACLPermissionTypeAllow)}
	h.b.meta.ACLs = map[string]*cluster.ACL{cluster.ACLKey(read): read}
	h.principal = "User:alice"
	f := call[*kmsg.FetchResponse](h, sessionFetch(0, 0, map[int32]int64{0: 0}))
	if f.SessionID == 0 || len(listed(f)) != 1 || f.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("alice's full fetch: session %d %v", f.SessionID, listed(f))
	}
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batchOf("b")))
	h.b.meta.ACLs = map[string]*cluster.ACL{}
	f = call[*kmsg.FetchResponse](h, sessionFetch(f.SessionID, 1, nil))
	if got := listed(f); len(got) != 1 || f.Topics[0].Partitions[0].ErrorCode != kerr.TopicAuthorizationFailed.Code {
		t.Errorf("after READ was removed: %v, want t refused with no records", got)
	}
}
