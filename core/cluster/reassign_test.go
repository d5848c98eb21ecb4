package cluster

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// reassignImage: brokers 1-4 live, 5 fenced; t-0 on [1 2 3] led by 1.
func reassignImage() *Image {
	im := NewImage()
	for _, id := range []int32{1, 2, 3, 4, 5} {
		im.Brokers[id] = &Broker{ID: id, Fenced: id == 5}
	}
	im.Topics["t"] = &Topic{Name: "t", Partitions: []*Partition{{Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, Leader: 1}}}
	return im
}

func applyOne(t *testing.T, im *Image, ch *PartitionChange) *Partition {
	t.Helper()
	errs, _ := im.Apply(im.Index+1, &Batch{Records: []Record{{PartitionChange: ch}}})
	if errs[0] != nil {
		t.Fatalf("applying %+v: %v", ch, errs[0])
	}
	return im.Partition("t", 0)
}

func showPartition(p *Partition) string {
	return fmt.Sprintf("replicas=%v isr=%v leader=%d leader_epoch=%d adding=%v removing=%v",
		p.Replicas, p.ISR, p.Leader, p.LeaderEpoch, p.AddingReplicas, p.RemovingReplicas)
}

// TestReassignMovesThroughTheISR: a move from [1 2 3] to [4 2 3] adds 4,
// keeps 1 (the leader) until 4 is in the ISR, then completes in the
// change that adds it: 1 leaves and 4, the first target replica, leads at
// a new leader epoch.
func TestReassignMovesThroughTheISR(t *testing.T) {
	im := reassignImage()
	ch, code, msg := im.Reassign("t", 0, []int32{4, 2, 3}, true)
	if code != 0 || ch == nil {
		t.Fatalf("Reassign: code %d %s, change %v", code, msg, ch)
	}
	p := applyOne(t, im, ch)
	if got, want := showPartition(p), "replicas=[4 2 3 1] isr=[1 2 3] leader=1 leader_epoch=0 adding=[4] removing=[1]"; got != want {
		t.Fatalf("moving:\n got %s\nwant %s", got, want)
	}
	if done := CompleteReassignment("t", 0, p, []int32{1, 2, 3}, im.Live); done != nil {
		t.Fatalf("completed before 4 joined the ISR: %+v", done)
	}
	done := CompleteReassignment("t", 0, p, []int32{1, 2, 3, 4}, im.Live)
	if done == nil {
		t.Fatal("4 in the ISR did not complete the move")
	}
	p = applyOne(t, im, done)
	if got, want := showPartition(p), "replicas=[4 2 3] isr=[2 3 4] leader=4 leader_epoch=1 adding=[] removing=[]"; got != want {
		t.Fatalf("done:\n got %s\nwant %s", got, want)
	}
}

// TestReassignCancelAndReplace: a cancel reverts to the original replicas
// without the adding ones; a new target replaces a move in progress; a
// removal completes at once. Dropping replicas (the adding ones of a
// cancelled move too) fences them with a new leader epoch.
func TestReassignCancelAndReplace(t *testing.T) {
	im := reassignImage()
	if _, code, _ := im.Reassign("t", 0, nil, true); code != kerr.NoReassignmentInProgress.Code {
		t.Fatalf("cancel without a move: code %d", code)
	}
	ch, _, _ := im.Reassign("t", 0, []int32{1, 2, 4}, true)
	applyOne(t, im, ch)
	ch, _, _ = im.Reassign("t", 0, []int32{1, 4, 5}, true) // from [1 2 3] again
	p := applyOne(t, im, ch)
	if got, want := showPartition(p), "replicas=[1 4 5 2 3] isr=[1 2 3] leader=1 leader_epoch=0 adding=[4 5] removing=[2 3]"; got != want {
		t.Fatalf("replaced:\n got %s\nwant %s", got, want)
	}
	ch, code, _ := im.Reassign("t", 0, nil, true)
	if code != 0 {
		t.Fatalf("cancel: code %d", code)
	}
	p = applyOne(t, im, ch)
	if got, want := showPartition(p), "replicas=[1 2 3] isr=[1 2 3] leader=1 leader_epoch=1 adding=[] removing=[]"; got != want {
		t.Fatalf("cancelled:\n got %s\nwant %s", got, want)
	}
	ch, _, _ = im.Reassign("t", 0, []int32{2, 3}, true)
	p = applyOne(t, im, ch)
	if got, want := showPartition(p), "replicas=[2 3] isr=[2 3] leader=2 leader_epoch=2 adding=[] removing=[]"; got != want {
		t.Fatalf("removed:\n got %s\nwant %s", got, want)
	}
}

// TestReassignRefusals: Kafka's errors for bad targets.
func TestReassignRefusals(t *testing.T) {
	im := reassignImage()
	for _, c := range []struct {
		target []int32
		rf     bool
		want   int16
	}{
		{[]int32{}, true, kerr.InvalidReplicaAssignment.Code},
		{[]int32{1, 1}, true, kerr.InvalidReplicaAssignment.Code},
		{[]int32{9}, true, kerr.InvalidReplicaAssignment.Code},
		{[]int32{5}, true, kerr.InvalidReplicaAssignment.Code},
		{[]int32{1, 2}, false, kerr.InvalidReplicationFactor.Code},
		{[]int32{1, 2, 3}, true, 0},
	} {
		ch, code, _ := im.Reassign("t", 0, c.target, c.rf)
		if code != c.want || ch != nil {
			t.Errorf("target %v (rf change %v): code %d change %v, want code %d and no change", c.target, c.rf, code, ch, c.want)
		}
	}
	if _, code, _ := im.Reassign("t", 1, []int32{1}, true); code != kerr.UnknownTopicOrPartition.Code {
		t.Errorf("unknown partition: code %d", code)
	}
}

// TestListAndAlterReassignments: the request forms. Null topics list
// every partition being reassigned; named ones only those, unknown ones
// left out. A request's outcomes keep its order, with the changes to write.
func TestListAndAlterReassignments(t *testing.T) {
	im := reassignImage()
	im.Topics["u"] = &Topic{Name: "u", Partitions: []*Partition{{Replicas: []int32{2}, ISR: []int32{2}, Leader: 2}}}
	alter := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	alter.Topics = []kmsg.AlterPartitionAssignmentsRequestTopic{
		{Topic: "t", Partitions: []kmsg.AlterPartitionAssignmentsRequestTopicPartition{{Partition: 0, Replicas: []int32{4, 2, 3}}, {Partition: 7, Replicas: []int32{1}}}},
		{Topic: "u", Partitions: []kmsg.AlterPartitionAssignmentsRequestTopicPartition{{Partition: 0, Replicas: []int32{2}}}},
	}
	resp, changes := AlterReassignments(im, alter)
	var codes []int16
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			codes = append(codes, rp.ErrorCode)
		}
	}
	if want := []int16{0, kerr.UnknownTopicOrPartition.Code, 0}; !slices.Equal(codes, want) {
		t.Fatalf("codes %v, want %v", codes, want)
	}
	if len(changes) != 1 || changes[0].Topic != 0 || changes[0].Position != 0 {
		t.Fatalf("changes %+v, want one for t-0", changes)
	}
	applyOne(t, im, changes[0].Change)
	list := func(topics []kmsg.ListPartitionReassignmentsRequestTopic) string {
		r := kmsg.NewPtrListPartitionReassignmentsRequest()
		r.Topics = topics
		var out []string
		for _, rt := range ListReassignments(im, r).Topics {
			for _, rp := range rt.Partitions {
				out = append(out, fmt.Sprintf("%s-%d %v +%v -%v", rt.Topic, rp.Partition, rp.Replicas, rp.AddingReplicas, rp.RemovingReplicas))
			}
		}
		return fmt.Sprint(out)
	}
	if got, want := list(nil), "[t-0 [4 2 3 1] +[4] -[1]]"; got != want {
		t.Errorf("all: %s, want %s", got, want)
	}
	if got := list([]kmsg.ListPartitionReassignmentsRequestTopic{{Topic: "u", Partitions: []int32{0}}, {Topic: "gone", Partitions: []int32{0}}}); got != "[]" {
		t.Errorf("u and an unknown topic: %s, want none", got)
	}
}
