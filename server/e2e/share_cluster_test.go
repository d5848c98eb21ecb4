package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/share"
)

// TestClusterShareGroupLeadersKilled: a franz-go share consumer accepts
// every record of a partition with three replicas while the leader of
// the __share_group_state partition its state hashes to (the share
// coordinator), and then the partition's leader, are SIGKILLed (and
// restarted): every produced record
// is delivered and accepted, and no record whose acceptance the broker
// confirmed is delivered again (KIP-932's share coordinator: the state
// is written through it before an acknowledgement is answered, and the
// next leader reads it).
func TestClusterShareGroupLeadersKilled(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("share.auto.offset.reset", "earliest"), WithConfig("auto.create.topics.enable", "false"))
	topic, groupID := topicName(t, "q"), topicName(t, "sg")
	adm := kadm.NewClient(clusterClient(t, bs, kgo.RetryTimeout(20*time.Second)))
	createFullyReplicated(t, adm, 1, topic)
	prod := clusterClient(t, bs, kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.RetryTimeout(60*time.Second))
	produce := func(from, n int) {
		t.Helper()
		var rs []*kgo.Record
		for i := from; i < from+n; i++ {
			rs = append(rs, &kgo.Record{Topic: topic, Partition: 0, Value: fmt.Appendf(nil, "v%d", i)})
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if err := prod.ProduceSync(ctx, rs...).FirstErr(); err != nil {
			t.Fatalf("produce: %v", err)
		}
	}
	produce(0, 300)

	// events: every delivery and every confirmed acceptance, in order.
	type event struct {
		offset    int64
		confirmed bool
	}
	var mu sync.Mutex
	var events []event
	var ackErr error
	cl := clusterClient(t, bs, kgo.ShareGroup(groupID), kgo.ConsumeTopics(topic), kgo.ShareMaxRecords(5),
		kgo.ShareAckCallback(func(_ *kgo.Client, rs kgo.ShareAckResults) {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rs {
				if r.Err != nil {
					ackErr = r.Err
				}
			}
		}))
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			fs := cl.PollRecords(ctx, 5)
			cancel()
			var offs []int64
			fs.EachRecord(func(r *kgo.Record) {
				offs = append(offs, r.Offset)
				r.Ack(kgo.AckAccept)
			})
			if len(offs) == 0 {
				continue
			}
			mu.Lock()
			for _, o := range offs {
				events = append(events, event{offset: o})
			}
			ackErr = nil
			mu.Unlock()
			fctx, fcancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := cl.FlushAcks(fctx)
			fcancel()
			mu.Lock()
			if err == nil && ackErr == nil {
				for _, o := range offs {
					events = append(events, event{offset: o, confirmed: true})
				}
			}
			mu.Unlock()
		}
	}()
	stopConsumer := sync.OnceFunc(func() { close(stop); <-done; cl.Close() })
	defer stopConsumer()

	confirmed := func() int {
		mu.Lock()
		defer mu.Unlock()
		seen := map[int64]bool{}
		for _, e := range events {
			if e.confirmed {
				seen[e.offset] = true
			}
		}
		return len(seen)
	}
	waitConfirmed := func(n int) {
		t.Helper()
		eventually(t, 90*time.Second, fmt.Sprintf("%d acceptances confirmed", n), func() error {
			if c := confirmed(); c < n {
				return fmt.Errorf("%d confirmed", c)
			}
			return nil
		})
	}
	leaderOf := func(topic string, p int32) *Broker {
		t.Helper()
		var leader int32
		eventually(t, 30*time.Second, fmt.Sprintf("a leader of %s-%d", topic, p), func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			md, err := adm.Metadata(ctx, topic)
			if err != nil {
				return err
			}
			pd, ok := md.Topics[topic].Partitions[p]
			if !ok || pd.Leader < 0 {
				return fmt.Errorf("no leader yet")
			}
			leader = pd.Leader
			return nil
		})
		return bs[leader-1]
	}

	waitConfirmed(40)
	md, err := adm.Metadata(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	k := share.Key{Group: groupID, TopicID: [16]byte(md.Topics[topic].ID), Partition: 0}
	statePart := group.PartitionFor(k.CoordinatorKey(), 50)
	coord, spl := leaderOf(share.StateTopic, statePart), leaderOf(topic, 0)
	t.Logf("killing broker %d, the leader of %s-%d (the share coordinator; %s-0 is led by broker %d)", coord.NodeID, share.StateTopic, statePart, topic, spl.NodeID)
	coord.KillAndRestart()
	waitFullISR(t, adm, topic, share.StateTopic)
	waitConfirmed(120)
	spl, coord = leaderOf(topic, 0), leaderOf(share.StateTopic, statePart)
	t.Logf("killing broker %d, the leader of %s-0 (the share coordinator is broker %d)", spl.NodeID, topic, coord.NodeID)
	spl.KillAndRestart()
	produce(300, 100)
	// Every record accepted: the share partition's start offset, as the
	// group coordinator reads it from the share coordinator
	// (ReadShareGroupStateSummary), is past all of them.
	eventually(t, 90*time.Second, "the share group's start offset at 400", func() error {
		offs, err := adm.DescribeShareGroupOffsets(context.Background(), groupID)
		if err != nil {
			return err
		}
		if err := offs[groupID].Err; err != nil {
			return err
		}
		if o, ok := offs[groupID].Offsets.Lookup(topic, 0); !ok || o.StartOffset != 400 {
			return fmt.Errorf("start offset %+v (%d acceptances confirmed)", o, confirmed())
		}
		return nil
	})

	// Let leadership settle (restarted brokers take back their preferred
	// partitions); the member is still in the group.
	waitFullISR(t, adm, topic, share.StateTopic, "__consumer_offsets")
	waitShareMembers(t, adm, groupID, 1)
	// Once it has left, the group coordinator is SIGKILLed: the next one
	// replays the empty group's records from __consumer_offsets and
	// describes it at its epoch.
	stopConsumer()
	waitShareMembers(t, adm, groupID, 0)
	d, err := adm.DescribeShareGroups(context.Background(), groupID)
	if err != nil || d[groupID].GroupEpoch == 0 {
		t.Fatalf("the empty share group: %v %+v", err, d[groupID])
	}
	epoch := d[groupID].GroupEpoch
	gc := leaderOf("__consumer_offsets", group.PartitionFor(groupID, 50))
	t.Logf("killing broker %d, the group coordinator of %s (epoch %d)", gc.NodeID, groupID, epoch)
	gc.KillAndRestart()
	eventually(t, 60*time.Second, "the empty share group at the next coordinator", func() error {
		d, err := adm.DescribeShareGroups(context.Background(), groupID)
		if err != nil {
			return err
		}
		if g := d[groupID]; g.Err != nil || g.GroupState != "Empty" || g.GroupEpoch != epoch {
			return fmt.Errorf("%v: %s at epoch %d, want Empty at %d", g.Err, g.GroupState, g.GroupEpoch, epoch)
		}
		return nil
	})
	waitFullISR(t, adm, topic, share.StateTopic, "__consumer_offsets")
	checkShareAdmin(t, adm, groupID, topic, stopConsumer)

	mu.Lock()
	defer mu.Unlock()
	done1 := map[int64]int{} // offset -> index of its confirmed acceptance
	for i, e := range events {
		switch {
		case e.confirmed:
			if _, ok := done1[e.offset]; !ok {
				done1[e.offset] = i
			}
		case !e.confirmed:
			if at, ok := done1[e.offset]; ok {
				t.Errorf("offset %d delivered again (event %d) after its acceptance was confirmed (event %d)", e.offset, i, at)
			}
		}
	}
	for o := int64(0); o < 400; o++ {
		if _, ok := done1[o]; ok {
			continue
		}
		// Accepted, but the answer was lost with its leader: it must
		// have been delivered, and never after its last acknowledgement.
		var seen []int
		for i, e := range events {
			if e.offset == o {
				seen = append(seen, i)
			}
		}
		if len(seen) == 0 {
			t.Errorf("offset %d never delivered", o)
		}
		t.Logf("offset %d: acceptance not confirmed (deliveries at events %v)", o, seen)
	}
}

// checkShareAdmin: once the consumer has left, the share-group offset
// admin APIs work through the share coordinators: AlterShareGroupOffsets
// moves the start offset (InitializeShareGroupState), DescribeShareGroupOffsets
// shows it (ReadShareGroupStateSummary), DeleteShareGroupOffsets forgets
// the topic (DeleteShareGroupState), and DeleteGroups deletes the group.
func checkShareAdmin(t *testing.T, adm *kadm.Client, groupID, topic string, stopConsumer func()) {
	t.Helper()
	stopConsumer()
	ctx := context.Background()
	var at kadm.Offsets
	at.Add(kadm.Offset{Topic: topic, Partition: 0, At: 350})
	eventually(t, 30*time.Second, "AlterShareGroupOffsets once the group is empty", func() error {
		rs, err := adm.AlterShareGroupOffsets(ctx, groupID, at)
		if err != nil {
			return err
		}
		return rs.Error()
	})
	offs, err := adm.DescribeShareGroupOffsets(ctx, groupID)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs[groupID].Offsets.Lookup(topic, 0); !ok || o.StartOffset != 350 {
		t.Fatalf("after AlterShareGroupOffsets: %+v, want start offset 350", o)
	}
	rs, err := adm.DeleteShareGroupOffsets(ctx, groupID, topic)
	if err == nil {
		err = rs.Error()
	}
	if err != nil {
		t.Fatalf("DeleteShareGroupOffsets: %v", err)
	}
	offs, err = adm.DescribeShareGroupOffsets(ctx, groupID)
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := offs[groupID].Offsets.Lookup(topic, 0); ok && o.StartOffset >= 0 {
		t.Fatalf("after DeleteShareGroupOffsets: %+v, want none", o)
	}
	if r, err := adm.DeleteGroup(ctx, groupID); err != nil || r.Err != nil {
		t.Fatalf("DeleteGroups: %v %v", err, r.Err)
	}
}
