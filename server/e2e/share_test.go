package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// shareMember is a franz-go share consumer (KIP-932) polling in the
// background and acknowledging every record with ack; it records which
// offsets of partition 0 it was given and with which delivery count.
type shareMember struct {
	cl   *kgo.Client
	mu   sync.Mutex
	got  map[int64][]int32 // offset -> delivery counts seen
	stop chan struct{}
	done chan struct{}
}

func startShareMember(t *testing.T, b *Broker, group, topic string, ack kgo.AckStatus, opts ...kgo.Opt) *shareMember {
	t.Helper()
	opts = append([]kgo.Opt{kgo.ShareGroup(group), kgo.ConsumeTopics(topic), kgo.ShareMaxRecords(5)}, opts...)
	m := &shareMember{cl: b.Client(t, opts...), got: map[int64][]int32{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for {
			select {
			case <-m.stop:
				return
			default:
			}
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			fs := m.cl.PollRecords(ctx, 5)
			cancel()
			fs.EachRecord(func(r *kgo.Record) {
				m.mu.Lock()
				m.got[r.Offset] = append(m.got[r.Offset], r.DeliveryCount())
				m.mu.Unlock()
				r.Ack(ack)
			})
			if fs.NumRecords() > 0 {
				m.cl.FlushAcks(context.Background())
			}
		}
	}()
	t.Cleanup(m.close)
	return m
}

// close stops polling and leaves the group.
func (m *shareMember) close() {
	select {
	case <-m.stop:
		return
	default:
	}
	close(m.stop)
	<-m.done
	m.cl.Close()
}

func (m *shareMember) offsets() map[int64][]int32 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[int64][]int32{}
	for k, v := range m.got {
		out[k] = append([]int32(nil), v...)
	}
	return out
}

// waitShareMembers waits until ShareGroupDescribe shows n members.
func waitShareMembers(t *testing.T, adm *kadm.Client, group string, n int) {
	t.Helper()
	eventually(t, opTimeout, fmt.Sprintf("share group %s with %d members", group, n), func() error {
		d, err := adm.DescribeShareGroups(context.Background(), group)
		if err != nil {
			return err
		}
		g := d[group]
		if g.Err != nil {
			return g.Err
		}
		if len(g.Members) != n {
			return fmt.Errorf("%d members, state %s", len(g.Members), g.GroupState)
		}
		return nil
	})
}

func produceOne(t *testing.T, b *Broker, topic string, from, n int) {
	t.Helper()
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var rs []*kgo.Record
	for i := from; i < from+n; i++ {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: 0, Value: []byte(fmt.Sprintf("v%d", i))})
	}
	if err := cl.ProduceSync(testCtx(t, opTimeout), rs...).FirstErr(); err != nil {
		t.Fatalf("producing: %v", err)
	}
}

func startShareBroker(t *testing.T) (*Broker, *kadm.Client, string, string) {
	b := startBroker(t, WithConfig("share.auto.offset.reset", "earliest"),
		WithConfig("group.share.record.lock.duration.ms", "2000"),
		WithConfig("group.share.heartbeat.interval.ms", "1000"))
	adm := b.Admin(t)
	topic, group := topicName(t, ""), topicName(t, "share")
	mustCreateTopic(t, adm, topic, 1, nil)
	return b, adm, topic, group
}

// TestShareGroupsFranzSplit: two franz-go share consumers on one
// partition split its records, no record is delivered to both while both
// accept, and the share-partition start offset ends past the last record,
// where it still is after a restart.
func TestShareGroupsFranzSplit(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b, adm, topic, group := startShareBroker(t)
	m1 := startShareMember(t, b, group, topic, kgo.AckAccept)
	m2 := startShareMember(t, b, group, topic, kgo.AckAccept)
	waitShareMembers(t, adm, group, 2)
	const n = 300
	for i := 0; i < n; i += 30 {
		produceOne(t, b, topic, i, 30)
	}
	eventually(t, opTimeout, "every record delivered", func() error {
		if got := len(m1.offsets()) + len(m2.offsets()); got < n {
			return fmt.Errorf("%d of %d records delivered", got, n)
		}
		return nil
	})
	o1, o2 := m1.offsets(), m2.offsets()
	for off := range o1 {
		if _, ok := o2[off]; ok {
			t.Errorf("offset %d was delivered to both members", off)
		}
	}
	for off := int64(0); off < n; off++ {
		_, in1 := o1[off]
		_, in2 := o2[off]
		if !in1 && !in2 {
			t.Errorf("offset %d was never delivered", off)
		}
	}
	if len(o1) == 0 || len(o2) == 0 {
		t.Errorf("one member got everything: %d and %d records", len(o1), len(o2))
	}
	t.Logf("split: %d and %d records", len(o1), len(o2))
	startAt := func(what string, adm *kadm.Client) {
		t.Helper()
		eventually(t, opTimeout, what, func() error {
			offs, err := adm.DescribeShareGroupOffsets(context.Background(), group)
			if err != nil {
				return err
			}
			g := offs[group]
			if g.Err != nil {
				return g.Err
			}
			o, ok := g.Offsets.Lookup(topic, 0)
			if !ok || o.StartOffset != n {
				return fmt.Errorf("start offset %+v, want %d", o, n)
			}
			return nil
		})
	}
	startAt("the start offset passes every accepted record", adm)
	// The share partition's state is in __share_group_state: a restarted
	// broker (SIGKILL, then a restart) has the same start offset.
	m1.close()
	m2.close()
	waitShareMembers(t, adm, group, 0)
	d, err := adm.DescribeShareGroups(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	epoch := d[group].GroupEpoch
	b.KillAndRestart()
	startAt("the start offset after a restart", b.Admin(t))
	lg, err := adm.ListGroupsByType(context.Background(), []string{"share"})
	if err != nil || len(lg) == 0 || lg[group].GroupType != "share" {
		t.Fatalf("ListGroups type share: %v %+v", err, lg)
	}
	// The group coordinator replayed the empty group's records from
	// __consumer_offsets: its epoch survived; DeleteGroups deletes it and
	// its records, so the next restart does not find it.
	d, err = adm.DescribeShareGroups(context.Background(), group)
	if err != nil || d[group].Err != nil || d[group].GroupState != "Empty" || d[group].GroupEpoch != epoch || epoch == 0 {
		t.Fatalf("the empty share group after a restart: %v %+v, want Empty at epoch %d", err, d[group], epoch)
	}
	if r, err := adm.DeleteGroup(context.Background(), group); err != nil || r.Err != nil {
		t.Fatalf("DeleteGroups: %v %v", err, r.Err)
	}
	b.KillAndRestart()
	lg, err = b.Admin(t).ListGroupsByType(context.Background(), []string{"share"})
	if _, ok := lg[group]; err != nil || ok {
		t.Fatalf("ListGroups after DeleteGroups and a restart: %v %+v", err, lg)
	}
}

// TestShareGroupsFranzRedelivery: a member that releases every record
// sees them delivered again (delivery count 2, 3...), until the delivery
// limit archives them; a member that holds records without acknowledging
// them loses them when their lock expires, and another member gets them.
func TestShareGroupsFranzRedelivery(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b, adm, topic, group := startShareBroker(t)
	rel := startShareMember(t, b, group, topic, kgo.AckRelease)
	waitShareMembers(t, adm, group, 1)
	produceOne(t, b, topic, 0, 3)
	eventually(t, opTimeout, "released records redelivered up to the delivery limit", func() error {
		got := rel.offsets()
		for off := int64(0); off < 3; off++ {
			if c := got[off]; len(c) < 5 || c[len(c)-1] != 5 {
				return fmt.Errorf("offset %d delivered with counts %v", off, c)
			}
		}
		return nil
	})
	rel.close()
	// All three were released five times: archived, the start moved past.
	eventually(t, opTimeout, "archived after five deliveries", func() error {
		offs, err := adm.DescribeShareGroupOffsets(context.Background(), group)
		if err != nil {
			return err
		}
		if o, ok := offs[group].Offsets.Lookup(topic, 0); !ok || o.StartOffset != 3 {
			return fmt.Errorf("start offset %+v, want 3", o)
		}
		return nil
	})
	for off, c := range rel.offsets() {
		if len(c) != 5 {
			t.Errorf("offset %d delivered %d times, want 5 (group.share.delivery.count.limit)", off, len(c))
		}
	}

	// A member that takes records and then neither acks nor polls.
	stuck := b.Client(t, kgo.ShareGroup(group), kgo.ConsumeTopics(topic), kgo.ShareMaxRecords(5))
	produceOne(t, b, topic, 3, 2)
	var held []int64
	eventually(t, opTimeout, "the silent member acquires the new records", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		stuck.PollRecords(ctx, 5).EachRecord(func(r *kgo.Record) { held = append(held, r.Offset) })
		if len(held) < 2 {
			return fmt.Errorf("holds %v", held)
		}
		return nil
	})
	acc := startShareMember(t, b, group, topic, kgo.AckAccept)
	eventually(t, opTimeout, "records redelivered after the lock expired", func() error {
		got := acc.offsets()
		for _, off := range held {
			if c := got[off]; len(c) == 0 || c[0] < 2 {
				return fmt.Errorf("offset %d seen with counts %v", off, c)
			}
		}
		return nil
	})
}
