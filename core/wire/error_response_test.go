package wire

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestErrorResponseListsEveryPartition: a coordinator error for a request
// that lists partitions answers each of them, so no client reads a
// partition left out as added or committed.
func TestErrorResponseListsEveryPartition(t *testing.T) {
	code := kerr.NotCoordinator.Code
	add := kmsg.NewPtrAddPartitionsToTxnRequest()
	add.SetVersion(3)
	add.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: "a", Partitions: []int32{0, 2}}, {Topic: "b", Partitions: []int32{1}}}
	commit := kmsg.NewPtrOffsetCommitRequest()
	commit.Topics = []kmsg.OffsetCommitRequestTopic{{Topic: "a", Partitions: []kmsg.OffsetCommitRequestTopicPartition{{Partition: 0}, {Partition: 1}}}}
	txnCommit := kmsg.NewPtrTxnOffsetCommitRequest()
	txnCommit.Topics = []kmsg.TxnOffsetCommitRequestTopic{{Topic: "a", Partitions: []kmsg.TxnOffsetCommitRequestTopicPartition{{Partition: 3}}}}

	got := map[string]int{}
	r := ErrorResponse(add, code).(*kmsg.AddPartitionsToTxnResponse)
	for _, tp := range r.Topics {
		for _, p := range tp.Partitions {
			if p.ErrorCode == code {
				got["add "+tp.Topic]++
			}
		}
	}
	c := ErrorResponse(commit, code).(*kmsg.OffsetCommitResponse)
	for _, tp := range c.Topics {
		for _, p := range tp.Partitions {
			if p.ErrorCode == code {
				got["commit "+tp.Topic]++
			}
		}
	}
	x := ErrorResponse(txnCommit, code).(*kmsg.TxnOffsetCommitResponse)
	for _, tp := range x.Topics {
		for _, p := range tp.Partitions {
			if p.ErrorCode == code && p.Partition == 3 {
				got["txn commit "+tp.Topic]++
			}
		}
	}
	want := map[string]int{"add a": 2, "add b": 1, "commit a": 2, "txn commit a": 1}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %d partitions answered NOT_COORDINATOR, want %d (all: %v)", k, got[k], n, got)
		}
	}
	v4 := kmsg.NewPtrAddPartitionsToTxnRequest()
	v4.SetVersion(4)
	if r := ErrorResponse(v4, code).(*kmsg.AddPartitionsToTxnResponse); r.ErrorCode != code {
		t.Errorf("v4: top-level error %d, want %d", r.ErrorCode, code)
	}
}
