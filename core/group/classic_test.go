package group_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/group/assign"
)

// lead runs the leader's assignment for a join answer.
func lead(t *testing.T, jr *kmsg.JoinGroupResponse, topics map[string]int32) []kmsg.SyncGroupRequestGroupAssignment {
	t.Helper()
	a, ok := assign.ByName(*jr.Protocol)
	if !ok {
		t.Fatalf("unknown protocol %q", *jr.Protocol)
	}
	sa, _, err := assign.Lead(a, jr.Members, topics)
	if err != nil {
		t.Fatal(err)
	}
	return sa
}

func TestJoinSyncHeartbeat(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.Version, fc.CoordinatorKeys = 4, []string{"g"}
	fr := h.do("c1", fc).(*kmsg.FindCoordinatorResponse)
	if len(fr.Coordinators) != 1 || fr.Coordinators[0].NodeID != 1 || fr.Coordinators[0].ErrorCode != 0 {
		t.Fatalf("FindCoordinator: %+v", fr.Coordinators)
	}
	if got, want := h.b.GroupCoordinatorPartition("g"), group.PartitionFor("g", 5); got != want {
		t.Fatalf("coordinator partition %d, want %d", got, want)
	}

	m1, j1 := h.joinNew("c1", "g", "t")
	jr1 := h.answer(j1).(*kmsg.JoinGroupResponse)
	wantCode(t, "join 1", jr1.ErrorCode, nil)
	if jr1.Generation != 1 || jr1.LeaderID != m1 || len(jr1.Members) != 1 || *jr1.Protocol != "cooperative-sticky" {
		t.Fatalf("join 1: %+v", jr1)
	}
	sr := h.do("c1", syncReq("g", m1, 1, lead(t, jr1, map[string]int32{"t": 4}))).(*kmsg.SyncGroupResponse)
	wantCode(t, "sync 1", sr.ErrorCode, nil)
	tps, _ := assign.DecodeAssignment(sr.MemberAssignment)
	if len(tps) != 4 {
		t.Fatalf("member 1 got %v", tps)
	}

	// A second member joins: member 1 learns of it from its heartbeat.
	m2, j2 := h.joinNew("c2", "g", "t")
	if h.answer(j2) != nil {
		t.Fatal("the second join must wait for the first member to rejoin")
	}
	wantCode(t, "heartbeat", h.do("c1", heartbeatReq("g", m1, 1)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.RebalanceInProgress)
	j1 = h.send("c1", joinReq("g", m1, nil, "t"))
	jr1, jr2 := h.answer(j1).(*kmsg.JoinGroupResponse), h.answer(j2).(*kmsg.JoinGroupResponse)
	if jr1.Generation != 2 || jr2.Generation != 2 || jr1.LeaderID != m1 || len(jr1.Members) != 2 || len(jr2.Members) != 0 {
		t.Fatalf("generation 2: leader %+v follower %+v", jr1, jr2)
	}
	s2 := h.send("c2", syncReq("g", m2, 2, nil))
	if h.answer(s2) != nil {
		t.Fatal("the follower's sync must wait for the leader")
	}
	sr1 := h.do("c1", syncReq("g", m1, 2, lead(t, jr1, map[string]int32{"t": 4}))).(*kmsg.SyncGroupResponse)
	sr2 := h.answer(s2).(*kmsg.SyncGroupResponse)
	a1, _ := assign.DecodeAssignment(sr1.MemberAssignment)
	a2, _ := assign.DecodeAssignment(sr2.MemberAssignment)
	owners := map[assign.TopicPartition]int{}
	for _, tp := range append(a1, a2...) {
		owners[tp]++
	}
	if len(owners) != 4 || len(a1)+len(a2) != 4 {
		t.Fatalf("assignments %v and %v do not cover t's 4 partitions once", a1, a2)
	}
	if g := h.b.Groups().Group("g"); g.State() != group.Stable || g.Generation() != 2 {
		t.Fatalf("group is %s generation %d", g.State(), g.Generation())
	}
	wantCode(t, "heartbeat 2", h.do("c2", heartbeatReq("g", m2, 2)).(*kmsg.HeartbeatResponse).ErrorCode, nil)
	wantCode(t, "old generation", h.do("c2", heartbeatReq("g", m2, 1)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.IllegalGeneration)
	wantCode(t, "unknown member", h.do("c2", heartbeatReq("g", "nobody", 2)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.UnknownMemberID)
}

// stableGroup builds a stable group of n members on topic t and returns
// the member ids.
func stableGroup(t *testing.T, h *harness, g string, n int) []string {
	t.Helper()
	var ids []string
	var joins []int32
	for i := range n {
		id, j := h.joinNew("c"+string(rune('1'+i)), g, "t")
		ids, joins = append(ids, id), append(joins, j)
		if i == 0 { // the first stabilises alone, the rest join one rebalance
			jr := h.answer(j).(*kmsg.JoinGroupResponse)
			h.do("c1", syncReq(g, id, jr.Generation, lead(t, jr, map[string]int32{"t": 4})))
		}
	}
	if n == 1 {
		return ids
	}
	joins[0] = h.send("c1", joinReq(g, ids[0], nil, "t"))
	var syncs []int32
	for i, j := range joins {
		jr := h.answer(j).(*kmsg.JoinGroupResponse)
		if jr == nil {
			t.Fatalf("member %d still waits", i)
		}
		var sa []kmsg.SyncGroupRequestGroupAssignment
		if jr.LeaderID == jr.MemberID {
			sa = lead(t, jr, map[string]int32{"t": 4})
		}
		syncs = append(syncs, h.send("c", syncReq(g, ids[i], jr.Generation, sa)))
	}
	for _, s := range syncs {
		wantCode(t, "sync", h.answer(s).(*kmsg.SyncGroupResponse).ErrorCode, nil)
	}
	return ids
}

func TestSessionTimeoutRebalances(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	ids := stableGroup(t, h, "g", 2)
	gen := h.b.Groups().Group("g").Generation()
	// Member 2 crashes; member 1 keeps heartbeating.
	for range 3 {
		h.advance(3000)
		wantCode(t, "heartbeat", h.do("c1", heartbeatReq("g", ids[0], gen)).(*kmsg.HeartbeatResponse).ErrorCode, nil)
	}
	if at, ok := h.b.NextDeadline(); !ok || at != h.now+1000 {
		t.Fatalf("next deadline %d (ok %v), want member 2's session expiry at %d", at, ok, h.now+1000)
	}
	h.advance(1000) // member 2's last heartbeat was 10s ago
	g := h.b.Groups().Group("g")
	if g.State() != group.PreparingRebalance {
		t.Fatalf("after member 2's session expired the group is %s", g.State())
	}
	wantCode(t, "heartbeat", h.do("c1", heartbeatReq("g", ids[0], gen)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.RebalanceInProgress)
	jr := h.answer(h.send("c1", joinReq("g", ids[0], nil, "t"))).(*kmsg.JoinGroupResponse)
	if jr.Generation != gen+1 || len(jr.Members) != 1 {
		t.Fatalf("rejoin: generation %d members %d", jr.Generation, len(jr.Members))
	}
}

func TestRebalanceTimeoutRemovesLaggards(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	ids := stableGroup(t, h, "g", 2)
	// Member 1 rejoins (say, its subscription changed); member 2 never does.
	j := h.send("c1", joinReq("g", ids[0], nil, "t", "u"))
	for range 10 {
		h.advance(2000)
		if h.got[j] == nil {
			wantCode(t, "heartbeat 2", h.do("c2", heartbeatReq("g", ids[1], 2)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.RebalanceInProgress)
		}
	}
	h.advance(10000) // past rebalance.timeout.ms = 30s
	jr := h.answer(j).(*kmsg.JoinGroupResponse)
	if jr == nil || len(jr.Members) != 1 {
		t.Fatalf("the barrier should have completed without member 2: %+v", jr)
	}
	wantCode(t, "member 2", h.do("c2", heartbeatReq("g", ids[1], jr.Generation)).(*kmsg.HeartbeatResponse).ErrorCode, kerr.UnknownMemberID)
}

func TestInitialRebalanceDelay(t *testing.T) {
	h := newHarness(t, map[string]string{"group.initial.rebalance.delay.ms": "3000"})
	topicReq(t, h, "t", 4)
	_, j1 := h.joinNew("c1", "g", "t")
	h.advance(2000)
	_, j2 := h.joinNew("c2", "g", "t")
	h.advance(1500)
	h.advance(1500)
	if h.got[j1] != nil || h.got[j2] != nil {
		t.Fatal("a member joined during the delay, which must be extended by another delay")
	}
	h.advance(1500)
	jr1, jr2 := h.answer(j1).(*kmsg.JoinGroupResponse), h.answer(j2).(*kmsg.JoinGroupResponse)
	if jr1 == nil || jr2 == nil || jr1.Generation != 1 || jr2.Generation != 1 {
		t.Fatalf("both members should be in generation 1: %+v %+v", jr1, jr2)
	}
}

func TestStaticMembership(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	inst := "instance-a"
	jr := h.do("c1", joinReq("g", "", &inst, "t")).(*kmsg.JoinGroupResponse)
	wantCode(t, "static join", jr.ErrorCode, nil) // no MEMBER_ID_REQUIRED for static members
	sr := h.do("c1", syncReq("g", jr.MemberID, 1, lead(t, jr, map[string]int32{"t": 4}))).(*kmsg.SyncGroupResponse)
	old := jr.MemberID

	// The process restarts and rejoins with the same instance id and no
	// member id: same metadata, so no rebalance.
	jr2 := h.do("c1", joinReq("g", "", &inst, "t")).(*kmsg.JoinGroupResponse)
	wantCode(t, "static rejoin", jr2.ErrorCode, nil)
	if jr2.MemberID == old || jr2.Generation != 1 || !jr2.SkipAssignment {
		t.Fatalf("static rejoin: %+v", jr2)
	}
	sr2 := h.do("c1", syncReq("g", jr2.MemberID, 1, nil)).(*kmsg.SyncGroupResponse)
	if string(sr2.MemberAssignment) != string(sr.MemberAssignment) {
		t.Fatal("the static member lost its assignment")
	}
	if g := h.b.Groups().Group("g"); g.Generation() != 1 || g.State() != group.Stable {
		t.Fatalf("group %s generation %d, want Stable 1", g.State(), g.Generation())
	}
	hb := heartbeatReq("g", old, 1)
	hb.InstanceID = &inst
	wantCode(t, "old member id", h.do("c1", hb).(*kmsg.HeartbeatResponse).ErrorCode, kerr.FencedInstanceID)

	// A static member leaving by instance id empties the group.
	lr := kmsg.NewPtrLeaveGroupRequest()
	lr.Version, lr.Group = 5, "g"
	lr.Members = []kmsg.LeaveGroupRequestMember{{InstanceID: &inst}}
	resp := h.do("c1", lr).(*kmsg.LeaveGroupResponse)
	wantCode(t, "leave", resp.Members[0].ErrorCode, nil)
	if g := h.b.Groups().Group("g"); g.State() != group.Empty || g.Generation() != 2 {
		t.Fatalf("after leaving: %s generation %d", g.State(), g.Generation())
	}
}
