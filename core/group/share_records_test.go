package group_test

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func shareBeat(t *testing.T, h *harness, member string, epoch int32, topics ...string) *kmsg.ShareGroupHeartbeatResponse {
	t.Helper()
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.SetVersion(1)
	req.GroupID, req.MemberID, req.MemberEpoch, req.SubscribedTopicNames = "sg", member, epoch, topics
	resp := h.do(member, req).(*kmsg.ShareGroupHeartbeatResponse)
	wantCode(t, "share heartbeat of "+member, resp.ErrorCode, nil)
	return resp
}

func describeShare(t *testing.T, h *harness) kmsg.ShareGroupDescribeResponseGroup {
	t.Helper()
	d := kmsg.NewPtrShareGroupDescribeRequest()
	d.SetVersion(1)
	d.GroupIDs = []string{"sg"}
	return h.do("c", d).(*kmsg.ShareGroupDescribeResponse).Groups[0]
}

func listShare(t *testing.T, h *harness) []kmsg.ListGroupsResponseGroup {
	t.Helper()
	l := kmsg.NewPtrListGroupsRequest()
	l.SetVersion(5)
	l.TypesFilter = []string{"share"}
	return h.do("c", l).(*kmsg.ListGroupsResponse).Groups
}

// TestShareGroupSurvivesRestart: a share group's records in
// __consumer_offsets (KIP-932's records 10 to 15) bring back, on a new
// broker over the same log, its epochs, members, their epochs and
// assignment; members heartbeat on at their epoch without a new one. Once
// all have left, the empty group, which has initialized share
// partitions, is still listed after a restart, and DeleteGroups deletes
// it for good (its records get tombstones).
func TestShareGroupSurvivesRestart(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 3)
	shareBeat(t, h, "m1", 0, "t")
	shareBeat(t, h, "m2", 0, "t")
	m1 := shareBeat(t, h, "m1", 1, "t") // learns epoch 2
	if m1.MemberEpoch != 2 {
		t.Fatalf("m1 at epoch %d, want 2", m1.MemberEpoch)
	}
	before := describeShare(t, h)

	h.restart()
	after := describeShare(t, h)
	if after.ErrorCode != 0 || after.GroupEpoch != before.GroupEpoch || after.AssignmentEpoch != before.AssignmentEpoch ||
		after.GroupState != "Stable" || len(after.Members) != 2 {
		t.Fatalf("after restart: %s %s epoch %d/%d, %d members; before: epoch %d/%d",
			errName(after.ErrorCode), after.GroupState, after.GroupEpoch, after.AssignmentEpoch, len(after.Members), before.GroupEpoch, before.AssignmentEpoch)
	}
	for i, m := range after.Members {
		w := before.Members[i]
		if m.MemberID != w.MemberID || m.MemberEpoch != w.MemberEpoch || m.ClientID != w.ClientID ||
			!slices.Equal(m.SubscribedTopicNames, w.SubscribedTopicNames) ||
			!slices.EqualFunc(m.Assignment.TopicPartitions, w.Assignment.TopicPartitions,
				func(x, y kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition) bool {
					return x.TopicID == y.TopicID && x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
				}) {
			t.Fatalf("member %d after restart: %+v\nbefore: %+v", i, m, w)
		}
	}
	if hb := shareBeat(t, h, "m2", 2); hb.MemberEpoch != 2 {
		t.Fatalf("m2 after restart at epoch %d, want 2 (no rebalance)", hb.MemberEpoch)
	}

	shareBeat(t, h, "m1", -1)
	shareBeat(t, h, "m2", -1)
	h.restart()
	if l := listShare(t, h); len(l) != 1 || l[0].Group != "sg" || l[0].GroupState != "Empty" {
		t.Fatalf("the empty share group after a restart: %+v", l)
	}
	if g := describeShare(t, h); g.ErrorCode != 0 || g.GroupState != "Empty" || g.GroupEpoch != 4 {
		t.Fatalf("the empty share group described: %s %s epoch %d, want Empty at 4", errName(g.ErrorCode), g.GroupState, g.GroupEpoch)
	}
	del := kmsg.NewPtrDeleteGroupsRequest()
	del.SetVersion(2)
	del.Groups = []string{"sg"}
	wantCode(t, "delete", h.do("c", del).(*kmsg.DeleteGroupsResponse).Groups[0].ErrorCode, nil)
	h.restart()
	if l := listShare(t, h); len(l) != 0 {
		t.Fatalf("a deleted share group after a restart: %+v", l)
	}
	wantCode(t, "describe a deleted share group", describeShare(t, h).ErrorCode, kerr.GroupIDNotFound)
}
