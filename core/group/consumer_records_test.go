package group_test

import (
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func describeConsumer(t *testing.T, h *harness) kmsg.ConsumerGroupDescribeResponseGroup {
	t.Helper()
	d := kmsg.NewPtrConsumerGroupDescribeRequest()
	d.Groups = []string{"g"}
	return h.do("c", d).(*kmsg.ConsumerGroupDescribeResponse).Groups[0]
}

// TestConsumerGroupSurvivesRestart: a KIP-848 group's records in
// __consumer_offsets bring back, on a new broker over the same log, its
// epochs, target, members and what each owns or is revoking; members
// heartbeat on at their epoch, and the revocation in flight completes.
func TestConsumerGroupSurvivesRestart(t *testing.T) {
	h, id, a := consumerGroupWithA(t)
	b := &cgh{id: "member-b"}
	h.consumerBeat(t, b, id, true)
	h.consumerBeat(t, a, id, false) // a is told to revoke two partitions
	if a.epoch != 1 || len(a.owned) != 2 {
		t.Fatalf("a while revoking: epoch %d owns %v", a.epoch, a.owned)
	}
	before := describeConsumer(t, h)

	h.restart()
	after := describeConsumer(t, h)
	if after.ErrorCode != 0 || after.Epoch != before.Epoch || after.AssignmentEpoch != before.AssignmentEpoch || after.State != before.State || len(after.Members) != 2 {
		t.Fatalf("after restart: %s epoch %d/%d %d members, before: %s epoch %d/%d",
			errName(after.ErrorCode), after.Epoch, after.AssignmentEpoch, len(after.Members), before.State, before.Epoch, before.AssignmentEpoch)
	}
	for i, m := range after.Members {
		w := before.Members[i]
		if m.MemberID != w.MemberID || m.MemberEpoch != w.MemberEpoch || !slices.Equal(m.SubscribedTopics, w.SubscribedTopics) ||
			!slices.EqualFunc(m.Assignment.TopicPartitions, w.Assignment.TopicPartitions, samePartitions) ||
			!slices.EqualFunc(m.TargetAssignment.TopicPartitions, w.TargetAssignment.TopicPartitions, samePartitions) {
			t.Fatalf("member %d after restart: %+v\nbefore: %+v", i, m, w)
		}
	}

	h.consumerBeat(t, a, id, false) // a acknowledges the revocation to the new broker
	h.consumerBeat(t, b, id, false)
	if a.epoch != 2 || b.epoch != 2 || len(a.owned) != 2 || len(b.owned) != 2 {
		t.Fatalf("after revoking across the restart: a epoch %d owns %v, b epoch %d owns %v", a.epoch, a.owned, b.epoch, b.owned)
	}
	if g := describeConsumer(t, h); g.State != "Stable" || g.Epoch != 2 {
		t.Fatalf("group %s at epoch %d, want Stable at 2 (no rebalance)", g.State, g.Epoch)
	}

	// Both leave and the group is deleted: its records get tombstones and
	// the next broker finds no group.
	for _, m := range []*cgh{a, b} {
		req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
		req.Version, req.Group, req.MemberID, req.MemberEpoch = 1, "g", m.id, -1
		wantCode(t, "leave", h.do(m.id, req).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode, nil)
	}
	h.restart()
	if g := describeConsumer(t, h); g.State != "Empty" || len(g.Members) != 0 || g.Epoch != 4 {
		t.Fatalf("after both left and a restart: %s, %d members, epoch %d", g.State, len(g.Members), g.Epoch)
	}
	del := kmsg.NewPtrDeleteGroupsRequest()
	del.Groups = []string{"g"}
	wantCode(t, "delete", h.do("c", del).(*kmsg.DeleteGroupsResponse).Groups[0].ErrorCode, nil)
	h.restart()
	wantCode(t, "describe a deleted group", describeConsumer(t, h).ErrorCode, kerr.GroupIDNotFound)
}

func samePartitions(x, y kmsg.AssignmentTopicPartition) bool {
	return x.TopicID == y.TopicID && x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
}
