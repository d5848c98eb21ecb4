package group_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// classicJoin is a cooperative-sticky member's JoinGroup that reports the
// partitions of t it owns.
func classicJoin(member string, owned []int32) *kmsg.JoinGroupRequest {
	req := joinReq("g", member, nil, "t")
	am := assign.Member{Topics: []string{"t"}, Generation: -1}
	for _, p := range owned {
		am.Owned = append(am.Owned, assign.TopicPartition{Topic: "t", Partition: p})
	}
	req.Protocols[0].Metadata = assign.EncodeSubscription("cooperative-sticky", am)
	return req
}

// classicSync is a SyncGroup by a non-leader; it returns the partitions
// of t given.
func (h *harness) classicSync(t *testing.T, member string, gen int32) []int32 {
	t.Helper()
	sr := h.do(member, syncReq("g", member, gen, nil)).(*kmsg.SyncGroupResponse)
	wantCode(t, "sync", sr.ErrorCode, nil)
	tps, err := assign.DecodeAssignment(sr.MemberAssignment)
	if err != nil {
		t.Fatal(err)
	}
	var ps []int32
	for _, tp := range tps {
		ps = append(ps, tp.Partition)
	}
	return ps
}

// TestClassicMemberInConsumerGroup: a classic consumer joins a KIP-848
// group through JoinGroup/SyncGroup; the server assigns; its heartbeats
// say REBALANCE_IN_PROGRESS until it can have its target, which it gets
// by rejoining; it commits under its generation and leaves.
func TestClassicMemberInConsumerGroup(t *testing.T) {
	h, id, a := consumerGroupWithA(t)

	r := h.do("c", joinReq("g", "", nil, "t")).(*kmsg.JoinGroupResponse)
	wantCode(t, "first join", r.ErrorCode, kerr.MemberIDRequired)
	c := r.MemberID
	jr := h.do(c, classicJoin(c, nil)).(*kmsg.JoinGroupResponse)
	wantCode(t, "join", jr.ErrorCode, nil)
	if jr.Generation != 2 || jr.LeaderID == c || *jr.Protocol != "cooperative-sticky" || len(jr.Members) != 0 {
		t.Fatalf("join: generation %d leader %q protocol %s members %d", jr.Generation, jr.LeaderID, *jr.Protocol, len(jr.Members))
	}
	if got := h.classicSync(t, c, 2); len(got) != 0 {
		t.Fatalf("c got %v while a still owns everything", got)
	}
	wantCode(t, "heartbeat while a revokes", h.do(c, heartbeatReq("g", c, 2)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.RebalanceInProgress)
	wantCode(t, "heartbeat at a wrong generation", h.do(c, heartbeatReq("g", c, 1)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.IllegalGeneration)

	h.consumerBeat(t, a, id, false) // told to revoke two
	h.consumerBeat(t, a, id, false) // revoked
	if a.epoch != 2 || len(a.owned) != 2 {
		t.Fatalf("a: epoch %d owns %v", a.epoch, a.owned)
	}
	wantCode(t, "heartbeat once released", h.do(c, heartbeatReq("g", c, 2)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.RebalanceInProgress)
	jr = h.do(c, classicJoin(c, nil)).(*kmsg.JoinGroupResponse)
	got := h.classicSync(t, c, jr.Generation)
	if jr.Generation != 2 || len(got) != 2 {
		t.Fatalf("c after rejoining: generation %d owns %v", jr.Generation, got)
	}
	for _, p := range got {
		for _, q := range a.owned {
			if p == q {
				t.Fatalf("partition %d given to c and a: %v %v", p, got, a.owned)
			}
		}
	}
	wantCode(t, "heartbeat", h.do(c, heartbeatReq("g", c, 2)).(*kmsg.HeartbeatResponse).ErrorCode, nil)
	g := describeConsumer(t, h)
	if g.State != "Stable" || len(g.Members) != 2 {
		t.Fatalf("describe: %s with %d members", g.State, len(g.Members))
	}
	for _, m := range g.Members {
		if want := map[bool]int8{true: 0, false: 1}[m.MemberID == c]; m.MemberType != want {
			t.Fatalf("member %s of type %d, want %d", m.MemberID, m.MemberType, want)
		}
	}
	cr := h.do(c, commitReq("g", c, 2, "t", map[int32]int64{0: 1})).(*kmsg.OffsetCommitResponse)
	wantCode(t, "commit", cr.Topics[0].Partitions[0].ErrorCode, nil)

	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Version, leave.Group, leave.Members = 3, "g", []kmsg.LeaveGroupRequestMember{{MemberID: c}}
	wantCode(t, "leave", h.do(c, leave).(*kmsg.LeaveGroupResponse).Members[0].ErrorCode, nil)
	h.consumerBeat(t, a, id, false)
	if a.epoch != 3 || len(a.owned) != 4 {
		t.Fatalf("a after c left: epoch %d owns %v", a.epoch, a.owned)
	}
}

// TestClassicGroupUpgrade: a KIP-848 member heartbeating to a stable
// classic group converts it: the classic members keep their generation
// as epoch and their partitions, and hand over through rejoins.
func TestClassicGroupUpgrade(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	id := h.b.Topic("t").ID
	ids := stableGroup(t, h, "g", 1)
	c := ids[0]
	a := &cgh{id: "member-a"}
	h.consumerBeat(t, a, id, true)
	g := describeConsumer(t, h)
	if g.ErrorCode != 0 || g.Epoch != 2 || len(g.Members) != 2 {
		t.Fatalf("after the upgrade: %s epoch %d, %d members", errName(g.ErrorCode), g.Epoch, len(g.Members))
	}
	if a.epoch != 2 || len(a.owned) != 0 {
		t.Fatalf("a: epoch %d owns %v, want nothing before c revokes", a.epoch, a.owned)
	}
	wantCode(t, "c's heartbeat", h.do(c, heartbeatReq("g", c, 1)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.RebalanceInProgress)
	jr := h.do(c, classicJoin(c, []int32{0, 1, 2, 3})).(*kmsg.JoinGroupResponse)
	wantCode(t, "c's rejoin", jr.ErrorCode, nil)
	got := h.classicSync(t, c, jr.Generation)
	if jr.Generation != 1 || len(got) != 2 { // still at 1: two partitions to revoke
		t.Fatalf("c told: generation %d owns %v", jr.Generation, got)
	}
	jr = h.do(c, classicJoin(c, got)).(*kmsg.JoinGroupResponse)
	if jr.Generation != 2 {
		t.Fatalf("c after revoking: generation %d", jr.Generation)
	}
	h.consumerBeat(t, a, id, false)
	if len(a.owned) != 2 {
		t.Fatalf("a owns %v after c revoked", a.owned)
	}
	wantCode(t, "c's heartbeat", h.do(c, heartbeatReq("g", c, 2)).(*kmsg.HeartbeatResponse).ErrorCode, nil)
}

// TestConsumerGroupDowngrade: when the last KIP-848 member leaves, the
// classic members are left in a classic group that rebalances, which they
// join; a restart before (the classic member's protocols are in its
// record) and after (the classic group's) changes none of it.
func TestConsumerGroupDowngrade(t *testing.T) {
	h, _, a := consumerGroupWithA(t)
	r := h.do("c", joinReq("g", "", nil, "t")).(*kmsg.JoinGroupResponse)
	c := r.MemberID
	jr := h.do(c, classicJoin(c, nil)).(*kmsg.JoinGroupResponse)
	wantCode(t, "join", jr.ErrorCode, nil)
	h.restart() // c's protocols come back from its record 5

	leave := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	leave.Version, leave.Group, leave.MemberID, leave.MemberEpoch = 1, "g", a.id, -1
	wantCode(t, "a leaves", h.do(a.id, leave).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode, nil)
	d := kmsg.NewPtrDescribeGroupsRequest()
	d.Groups = []string{"g"}
	dg := h.do("c", d).(*kmsg.DescribeGroupsResponse).Groups[0]
	if dg.ErrorCode != 0 || dg.State != "PreparingRebalance" || len(dg.Members) != 1 || dg.Members[0].MemberID != c {
		t.Fatalf("after a left: %s %s with %d members", errName(dg.ErrorCode), dg.State, len(dg.Members))
	}
	// a's leaving moved the epoch to 3, the classic generation; c is at 2.
	wantCode(t, "c's heartbeat", h.do(c, heartbeatReq("g", c, jr.Generation)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.IllegalGeneration)
	wantCode(t, "c's heartbeat at 3", h.do(c, heartbeatReq("g", c, 3)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.RebalanceInProgress)
	jr = h.answer(h.send(c, classicJoin(c, nil))).(*kmsg.JoinGroupResponse)
	if jr == nil || jr.ErrorCode != 0 || jr.LeaderID != c || jr.Generation != 4 {
		t.Fatalf("c's rejoin: %+v", jr)
	}
	sr := h.do(c, syncReq("g", c, jr.Generation, lead(t, jr, map[string]int32{"t": 4}))).(*kmsg.SyncGroupResponse)
	wantCode(t, "sync", sr.ErrorCode, nil)
	if tps, _ := assign.DecodeAssignment(sr.MemberAssignment); len(tps) != 4 {
		t.Fatalf("c got %v", tps)
	}
	h.restart()
	dg = h.do("c", d).(*kmsg.DescribeGroupsResponse).Groups[0]
	if dg.State != "Stable" || len(dg.Members) != 1 || dg.Members[0].MemberID != c {
		t.Fatalf("after a restart: %s with %d members", dg.State, len(dg.Members))
	}
	wantCode(t, "describe as a consumer group", describeConsumer(t, h).ErrorCode, kerr.GroupIDNotFound)
}
