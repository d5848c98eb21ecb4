//go:build !noquorum

package describe

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestDescribeReassign: a move names its target replicas, a cancel (null
// replicas) says so, and the answer carries each partition's error.
func TestDescribeReassign(t *testing.T) {
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	rt := kmsg.NewAlterPartitionAssignmentsRequestTopic()
	rt.Topic = "orders"
	move, cancel := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition(), kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
	move.Partition, move.Replicas = 0, []int32{1, 4, 0}
	cancel.Partition = 1
	rt.Partitions = append(rt.Partitions, move, cancel)
	req.Topics = append(req.Topics, rt)
	if got, want := Message(req), "AlterPartitionAssignments orders-0 replicas=[1 4 0]; orders-1 cancel"; got != want {
		t.Errorf("request: %q, want %q", got, want)
	}
	resp := kmsg.NewPtrAlterPartitionAssignmentsResponse()
	st := kmsg.NewAlterPartitionAssignmentsResponseTopic()
	st.Topic = "orders"
	ok, none := kmsg.NewAlterPartitionAssignmentsResponseTopicPartition(), kmsg.NewAlterPartitionAssignmentsResponseTopicPartition()
	none.Partition, none.ErrorCode = 1, 85
	st.Partitions = append(st.Partitions, ok, none)
	resp.Topics = append(resp.Topics, st)
	if got, want := Message(resp), "AlterPartitionAssignments orders-0; orders-1 error=NO_REASSIGNMENT_IN_PROGRESS"; got != want {
		t.Errorf("response: %q, want %q", got, want)
	}
}
