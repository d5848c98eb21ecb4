package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestReassignSingleBroker: a single broker is the only broker there is:
// moving a partition to it changes nothing, any other broker is not
// registered, nothing is ever being reassigned.
func TestReassignSingleBroker(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, opTimeout)
	adm := b.Admin(t)
	topic := topicName(t, "")
	mustCreateTopic(t, adm, topic, 1, nil)
	var req kadm.AlterPartitionAssignmentsReq
	req.Assign(topic, 0, []int32{b.NodeID})
	req.Assign(topic+"-missing", 0, []int32{b.NodeID})
	rs, err := adm.AlterPartitionAssignments(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs[topic][0].Err; err != nil {
		t.Errorf("moving %s-0 to its own broker: %v", topic, err)
	}
	if err := rs[topic+"-missing"][0].Err; !errors.Is(err, kerr.UnknownTopicOrPartition) {
		t.Errorf("a missing topic: %v, want UNKNOWN_TOPIC_OR_PARTITION", err)
	}
	req = nil
	req.Assign(topic, 0, []int32{b.NodeID + 1})
	if rs, err = adm.AlterPartitionAssignments(ctx, req); err != nil || !errors.Is(rs[topic][0].Err, kerr.InvalidReplicaAssignment) {
		t.Errorf("moving to an unknown broker: %v %+v, want INVALID_REPLICA_ASSIGNMENT", err, rs)
	}
	req = nil
	req.CancelAssign(topic, 0)
	if rs, err = adm.AlterPartitionAssignments(ctx, req); err != nil || !errors.Is(rs[topic][0].Err, kerr.NoReassignmentInProgress) {
		t.Errorf("cancelling: %v %+v, want NO_REASSIGNMENT_IN_PROGRESS", err, rs)
	}
	ls, err := adm.ListPartitionReassignments(ctx, kadm.TopicsSet{topic: {0: {}}})
	if err != nil || len(ls) != 0 {
		t.Errorf("ListPartitionReassignments: %v %+v, want none", err, ls)
	}
}

// TestClusterReassign: on three brokers, a partition on two of them (RF=2,
// min.insync.replicas=2) moves off its leader to the third with kadm while
// acks=all producers write: the new replica catches up and joins the ISR,
// the old leader hands over and deletes its log, and a consumer reads
// every acknowledged record once, in order. sarama moves it back. A move
// to a broker that is down stays in progress (ListPartitionReassignments
// shows it, through kadm and sarama) until it is cancelled.
func TestClusterReassign(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("replica.lag.time.max.ms", "2000"))
	cl := clusterClient(t, bs, kgo.RetryTimeout(30*time.Second))
	adm := kadm.NewClient(cl)
	ctx := testCtx(t, 4*opTimeout)
	topic := topicName(t, "")
	two := "2"
	if resp, err := adm.CreateTopic(ctx, 1, 2, map[string]*string{"min.insync.replicas": &two}, topic); err != nil || resp.Err != nil {
		t.Fatalf("CreateTopic: %v %+v", err, resp)
	}
	p := waitPartition(t, cl, topic, "a leader and a full ISR", func(p partition) bool { return p.Leader >= 0 && len(p.ISR) == 2 })
	orig := slices.Clone(p.Replicas)
	var spare int32
	for id := int32(1); id <= 3; id++ {
		if !slices.Contains(orig, id) {
			spare = id
		}
	}
	leaving := p.Leader
	target := []int32{spare, without(orig, leaving)[0]}
	tl := startTail(t, bs, topic)

	written := produceCounting(t, bs, topic, "before", 20)
	done := make(chan int)
	go func() { done <- len(produceCounting(t, bs, topic, "during", 200)) }()
	var req kadm.AlterPartitionAssignmentsReq
	req.Assign(topic, 0, target)
	rs, err := adm.AlterPartitionAssignments(ctx, req)
	if err != nil || rs[topic][0].Err != nil {
		t.Fatalf("kadm AlterPartitionAssignments %v: %v %+v", target, err, rs)
	}
	p = waitPartition(t, cl, topic, fmt.Sprintf("replicas %v in sync", target), func(p partition) bool {
		return slices.Equal(p.Replicas, target) && len(p.ISR) == 2 && slices.Contains(target, p.Leader)
	})
	n := len(written) + <-done
	vals := tl.upTo(t, int64(n))
	if len(vals) != n {
		t.Fatalf("read %d records, %d were acknowledged", len(vals), n)
	}
	ls, err := adm.ListPartitionReassignments(ctx, kadm.TopicsSet{topic: {0: {}}})
	if err != nil || len(ls) != 0 {
		t.Errorf("ListPartitionReassignments after the move: %v %+v, want none", err, ls)
	}
	gone := filepath.Join(bs[leaving-1].DataDir, topic+"-0")
	eventually(t, 30*time.Second, "the removed replica's log deleted", func() error {
		// The slot stays as an empty log, as for partitions a broker
		// never replicated; no record is left in it.
		segs, _ := filepath.Glob(filepath.Join(gone, "*.log"))
		for _, s := range segs {
			if fi, err := os.Stat(s); err == nil && fi.Size() > 0 {
				return fmt.Errorf("%s still holds %d bytes", s, fi.Size())
			}
		}
		return nil
	})

	// sarama moves it back.
	admin := saramaAdmin(t, seeds(bs)...)
	if err := admin.AlterPartitionReassignments(topic, [][]int32{orig}); err != nil {
		t.Fatalf("sarama AlterPartitionReassignments %v: %v", orig, err)
	}
	waitPartition(t, cl, topic, fmt.Sprintf("replicas %v in sync", orig), func(p partition) bool {
		return slices.Equal(p.Replicas, orig) && len(p.ISR) == 2
	})
	more := produceCounting(t, bs, topic, "after", 5)
	tl.upTo(t, int64(n+len(more)))

	// A move to a broker that is down stays in progress until cancelled.
	bs[spare-1].Kill()
	waitPartition(t, cl, topic, "the ISR still full", func(p partition) bool { return len(p.ISR) == 2 })
	req = nil
	req.Assign(topic, 0, []int32{orig[0], spare})
	eventually(t, 30*time.Second, "a move to a broker that is down accepted", func() error {
		rs, err := adm.AlterPartitionAssignments(ctx, req)
		if err != nil {
			return err
		}
		return rs[topic][0].Err
	})
	ls, err = adm.ListPartitionReassignments(ctx, kadm.TopicsSet{topic: {0: {}}})
	r := ls[topic][0]
	if err != nil || !slices.Equal(r.AddingReplicas, []int32{spare}) || !slices.Equal(r.RemovingReplicas, orig[1:]) {
		t.Errorf("kadm ListPartitionReassignments in progress: %v %+v, want adding [%d] removing %v", err, ls, spare, orig[1:])
	}
	st, err := admin.ListPartitionReassignments(topic, []int32{0})
	if err != nil || st[topic][0] == nil || !slices.Equal(st[topic][0].AddingReplicas, []int32{spare}) {
		t.Errorf("sarama ListPartitionReassignments in progress: %v %+v", err, st)
	}
	req = nil
	req.CancelAssign(topic, 0)
	if rs, err = adm.AlterPartitionAssignments(ctx, req); err != nil || rs[topic][0].Err != nil {
		t.Fatalf("cancelling: %v %+v", err, rs)
	}
	waitPartition(t, cl, topic, fmt.Sprintf("replicas %v again", orig), func(p partition) bool {
		return slices.Equal(p.Replicas, orig) && len(p.ISR) == 2
	})
	if rs, err = adm.AlterPartitionAssignments(ctx, req); err != nil || !errors.Is(rs[topic][0].Err, kerr.NoReassignmentInProgress) {
		t.Errorf("cancelling again: %v %+v, want NO_REASSIGNMENT_IN_PROGRESS", err, rs)
	}
	last := produceCounting(t, bs, topic, "last", 3)
	tl.upTo(t, int64(n+len(more)+len(last)))
}

func without(s []int32, b int32) []int32 {
	return slices.DeleteFunc(slices.Clone(s), func(x int32) bool { return x == b })
}

// produceCounting writes count records named prefix-i with acks=all and
// returns those acknowledged; any other outcome fails the test.
func produceCounting(t *testing.T, bs []*Broker, topic, prefix string, count int) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds(bs)...), kgo.DefaultProduceTopic(topic),
		kgo.RecordRetries(1000), kgo.RetryTimeout(30*time.Second))
	if err != nil {
		t.Error(err)
		return nil
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var acked []string
	for i := range count {
		v := prefix + "-" + strconv.Itoa(i)
		if err := cl.ProduceSync(ctx, kgo.StringRecord(v)).FirstErr(); err != nil {
			t.Errorf("producing %s: %v", v, err)
			return acked
		}
		acked = append(acked, v)
	}
	return acked
}
