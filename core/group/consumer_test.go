package group_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
)

// cgh is one KIP-848 member's view: what it owns by partition.
type cgh struct {
	id    string
	epoch int32
	owned []int32
}

func (h *harness) consumerBeat(t *testing.T, m *cgh, topicID [16]byte, full bool) *kmsg.ConsumerGroupHeartbeatResponse {
	t.Helper()
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Version, req.Group, req.MemberID, req.MemberEpoch = 1, "g", m.id, m.epoch
	req.RebalanceTimeoutMillis = 30000
	if full {
		req.SubscribedTopicNames = []string{"t"}
		assignor := "uniform"
		req.ServerAssignor = &assignor
	}
	req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{{TopicID: topicID, Partitions: m.owned}}
	resp := h.do(m.id, req).(*kmsg.ConsumerGroupHeartbeatResponse)
	wantCode(t, "consumer heartbeat", resp.ErrorCode, nil)
	m.epoch = resp.MemberEpoch
	if resp.Assignment != nil { // the member takes what it is given, revoking the rest
		m.owned = nil
		for _, at := range resp.Assignment.Topics {
			m.owned = append(m.owned, at.Partitions...)
		}
	}
	return resp
}

// consumerGroupWithA is a broker with topic t of 4 partitions and group
// g, which KIP-848 member a has joined; id is t's topic id.
func consumerGroupWithA(t *testing.T) (h *harness, id [16]byte, a *cgh) {
	h = newHarness(t, nil)
	topicReq(t, h, "t", 4)
	id = h.b.Topic("t").ID
	a = &cgh{id: "member-a"}
	h.consumerBeat(t, a, id, true)
	return h, id, a
}

func TestConsumerGroupReconciliation(t *testing.T) {
	h, id, a := consumerGroupWithA(t)
	if a.epoch != 1 || len(a.owned) != 4 {
		t.Fatalf("first member: epoch %d owns %v", a.epoch, a.owned)
	}
	b := &cgh{id: "member-b"}
	h.consumerBeat(t, b, id, true)
	if b.epoch != 2 || len(b.owned) != 0 { // at the new epoch, its partitions unreleased
		t.Fatalf("second member: epoch %d owns %v, want nothing until a revokes", b.epoch, b.owned)
	}
	h.consumerBeat(t, a, id, false) // a learns to revoke two partitions
	if a.epoch != 1 || len(a.owned) != 2 {
		t.Fatalf("a while revoking: epoch %d owns %v", a.epoch, a.owned)
	}
	if g := h.b.Groups().Group("g"); g.State() != group.Reconciling {
		t.Fatalf("group is %s while a revokes", g.State())
	}
	h.consumerBeat(t, b, id, false)
	if len(b.owned) != 0 {
		t.Fatalf("b got %v before a released them", b.owned)
	}
	h.consumerBeat(t, a, id, false) // a acknowledges: it owns only two now
	if a.epoch != 2 {
		t.Fatalf("a after revoking: epoch %d", a.epoch)
	}
	h.consumerBeat(t, b, id, false)
	if b.epoch != 2 || len(b.owned) != 2 {
		t.Fatalf("b after a released: epoch %d owns %v", b.epoch, b.owned)
	}
	if g := h.b.Groups().Group("g"); g.State() != group.Stable {
		t.Fatalf("group is %s", g.State())
	}
	seen := map[int32]bool{}
	for _, p := range append(append([]int32(nil), a.owned...), b.owned...) {
		if seen[p] {
			t.Fatalf("partition %d owned twice: a %v b %v", p, a.owned, b.owned)
		}
		seen[p] = true
	}

	// Offsets commit under the member epoch (OffsetCommit v9).
	c := commitReq("g", a.id, a.epoch, "t", map[int32]int64{0: 3})
	c.Version = 9
	wantCode(t, "commit", h.do("a", c).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, nil)
	c.Generation = a.epoch + 5
	wantCode(t, "stale commit", h.do("a", c).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, kerr.StaleMemberEpoch)

	// b's session ends; a gets everything back.
	for range 10 {
		h.advance(5000)
		h.consumerBeat(t, a, id, false)
	}
	if len(a.owned) != 4 {
		t.Fatalf("after b timed out a owns %v", a.owned)
	}
	d := kmsg.NewPtrConsumerGroupDescribeRequest()
	d.Groups = []string{"g"}
	dr := h.do("c", d).(*kmsg.ConsumerGroupDescribeResponse)
	if g := dr.Groups[0]; g.ErrorCode != 0 || len(g.Members) != 1 || g.Members[0].MemberID != a.id || g.State != "Stable" {
		t.Fatalf("describe: %+v", g)
	}
	// A classic member joins a live consumer group only as a consumer.
	r := h.do("c", joinReq("g", "", nil, "t")).(*kmsg.JoinGroupResponse)
	wantCode(t, "classic join", r.ErrorCode, kerr.MemberIDRequired)
	bad := joinReq("g", r.MemberID, nil, "t")
	bad.ProtocolType = "connect"
	wantCode(t, "classic join of another protocol type", h.do("c", bad).(*kmsg.JoinGroupResponse).ErrorCode, kerr.InconsistentGroupProtocol)
}
