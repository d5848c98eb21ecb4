package cluster

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
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
