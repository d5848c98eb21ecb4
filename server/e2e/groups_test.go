package e2e

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Consumer groups with real clients: members join and leave, every
// partition has exactly one owner (read back from the broker with
// DescribeGroups), committed offsets survive a SIGKILL and restart, and a
// new member resumes from them. These tests run the classic protocol.

const groupPartitions = 6

// startGroupBroker starts a broker whose groups rebalance without the
// initial 3 s delay.
func startGroupBroker(t *testing.T) *Broker {
	return startBroker(t, WithConfig("group.initial.rebalance.delay.ms", "0"))
}

// produceSpread produces n records round-robin over the partitions, values
// "v<from+i>".
func produceSpread(t testing.TB, b *Broker, topic string, from, n int) {
	t.Helper()
	cl := b.Client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	var rs []*kgo.Record
	for i := from; i < from+n; i++ {
		rs = append(rs, &kgo.Record{Topic: topic, Partition: int32(i % groupPartitions), Value: []byte(fmt.Sprintf("v%d", i))})
	}
	if err := cl.ProduceSync(testCtx(t, opTimeout), rs...).FirstErr(); err != nil {
		t.Fatalf("producing: %v", err)
	}
}

// waitOwners polls DescribeGroups until the group is stable with the
// given number of members and every partition of topic is owned by
// exactly one of them, each member owning at least one.
func waitOwners(t testing.TB, adm *kadm.Client, group, topic string, members int) {
	t.Helper()
	eventually(t, opTimeout, fmt.Sprintf("group %s: %d members owning %s", group, members, topic), func() error {
		dg, err := adm.DescribeGroups(context.Background(), group)
		if err != nil {
			return err
		}
		g := dg[group]
		if g.Err != nil {
			return g.Err
		}
		if g.State != "Stable" || len(g.Members) != members {
			return fmt.Errorf("state %s with %d members", g.State, len(g.Members))
		}
		owned := map[string][]int32{}
		for _, m := range g.Members {
			ca, ok := m.Assigned.AsConsumer()
			if !ok {
				return fmt.Errorf("member %s: assignment does not decode", m.MemberID)
			}
			owned[m.MemberID] = nil
			for _, at := range ca.Topics {
				if at.Topic != topic {
					return fmt.Errorf("member %s was given topic %s", m.MemberID, at.Topic)
				}
				owned[m.MemberID] = append(owned[m.MemberID], at.Partitions...)
			}
		}
		return checkOwners(owned)
	})
}

// checkOwners: every partition of the test topic has exactly one owner
// among the members, and every member owns at least one.
func checkOwners(owned map[string][]int32) error {
	owners := map[int32]int{}
	for member, ps := range owned {
		if len(ps) == 0 {
			return fmt.Errorf("member %s owns nothing", member)
		}
		for _, p := range ps {
			owners[p]++
		}
	}
	for p := int32(0); p < groupPartitions; p++ {
		if owners[p] != 1 {
			return fmt.Errorf("partition %d has %d owners (%v)", p, owners[p], owners)
		}
	}
	return nil
}

func waitCommitted(t testing.TB, adm *kadm.Client, group, topic string, each int64) {
	t.Helper()
	eventually(t, opTimeout, fmt.Sprintf("group %s committing offset %d on every partition", group, each), func() error {
		os, err := adm.FetchOffsets(context.Background(), group)
		if err != nil {
			return err
		}
		for p := int32(0); p < groupPartitions; p++ {
			if o, ok := os.Lookup(topic, p); !ok || o.At != each {
				return fmt.Errorf("partition %d at %v", p, o.At)
			}
		}
		return nil
	})
}

// member is a franz-go group consumer polling in the background.
type member struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}
	mu     sync.Mutex
	recs   []*kgo.Record
}

func startMember(t *testing.T, b *Broker, group, topic string, opts ...kgo.Opt) *member {
	t.Helper()
	all := append([]kgo.Opt{
		kgo.SeedBrokers(b.Addr),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.SessionTimeout(10 * time.Second),
		kgo.HeartbeatInterval(300 * time.Millisecond),
		kgo.FetchMaxWait(200 * time.Millisecond),
		kgo.RetryTimeout(20 * time.Second),
	}, opts...)
	cl, err := kgo.NewClient(all...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{cl: cl, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		for ctx.Err() == nil {
			fs := cl.PollFetches(ctx)
			m.mu.Lock()
			m.recs = append(m.recs, fs.Records()...)
			m.mu.Unlock()
		}
	}()
	t.Cleanup(m.close)
	return m
}

// close stops polling and closes the client (which commits, when
// autocommitting, and leaves the group).
func (m *member) close() {
	m.cancel()
	<-m.done
	m.cl.Close()
}

// next is, per partition, one past the highest offset this member read.
func (m *member) next() map[int32]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[int32]int64{}
	for _, r := range m.recs {
		out[r.Partition] = max(out[r.Partition], r.Offset+1)
	}
	return out
}

func (m *member) records() []*kgo.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*kgo.Record(nil), m.recs...)
}

func waitRead(t testing.TB, m *member, each int64) {
	t.Helper()
	eventually(t, opTimeout, fmt.Sprintf("a member reading up to offset %d on every partition", each), func() error {
		n := m.next()
		for p := int32(0); p < groupPartitions; p++ {
			if n[p] < each {
				return fmt.Errorf("partition %d read up to %d", p, n[p])
			}
		}
		return nil
	})
}

func TestGroupsFranz(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		balancer kgo.GroupBalancer
	}{
		{"eager-range", kgo.RangeBalancer()},
		{"eager-roundrobin", kgo.RoundRobinBalancer()},
		{"cooperative-sticky", kgo.CooperativeStickyBalancer()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := startGroupBroker(t)
			adm := b.Admin(t)
			topic, group := topicName(t, ""), topicName(t, "group")
			mustCreateTopic(t, adm, topic, groupPartitions, nil)
			produceSpread(t, b, topic, 0, 60)
			bal := kgo.Balancers(tc.balancer)

			m1 := startMember(t, b, group, topic, bal)
			waitOwners(t, adm, group, topic, 1)
			m2 := startMember(t, b, group, topic, bal)
			waitOwners(t, adm, group, topic, 2)
			m3 := startMember(t, b, group, topic, bal)
			waitOwners(t, adm, group, topic, 3)
			m2.close()
			waitOwners(t, adm, group, topic, 2)
			m3.close()
			waitOwners(t, adm, group, topic, 1)

			// m1 owns everything now and reads to the end; its commit
			// is what the group resumes from.
			waitRead(t, m1, 10)
			if err := m1.cl.CommitUncommittedOffsets(testCtx(t, opTimeout)); err != nil {
				t.Fatalf("commit: %v", err)
			}
			waitCommitted(t, adm, group, topic, 10)
			m1.close()

			b.KillAndRestart()
			adm = b.Admin(t)
			waitCommitted(t, adm, group, topic, 10) // survived the SIGKILL
			produceSpread(t, b, topic, 60, 30)
			m4 := startMember(t, b, group, topic, bal)
			waitRead(t, m4, 15)
			for _, r := range m4.records() {
				if r.Offset < 10 {
					t.Fatalf("the new member read %s/%d offset %d, below the committed 10", r.Topic, r.Partition, r.Offset)
				}
			}
		})
	}
}

// TestGroupsFranzStatic restarts a static member (group.instance.id,
// KIP-345) and checks that the group neither rebalances nor loses it.
func TestGroupsFranzStatic(t *testing.T) {
	t.Parallel()
	b := startGroupBroker(t)
	adm := b.Admin(t)
	topic, group := topicName(t, ""), topicName(t, "group")
	mustCreateTopic(t, adm, topic, groupPartitions, nil)
	opts := func(id string) []kgo.Opt {
		return []kgo.Opt{kgo.InstanceID(id), kgo.Balancers(kgo.CooperativeStickyBalancer())}
	}
	a := startMember(t, b, group, topic, opts("a")...)
	waitOwners(t, adm, group, topic, 1)
	bm := startMember(t, b, group, topic, opts("b")...)
	waitOwners(t, adm, group, topic, 2)
	before, oldID := describeAssignment(t, adm, group)
	bm.close() // a static member's Close does not leave the group
	startMember(t, b, group, topic, opts("b")...)
	eventually(t, opTimeout, "the restarted static member taking its old place", func() error {
		after, newID := describeAssignment(t, adm, group)
		if newID == oldID {
			return fmt.Errorf("instance b still has member id %s", oldID)
		}
		if fmt.Sprint(after) != fmt.Sprint(before) {
			return fmt.Errorf("assignment %v, before the restart %v", after, before)
		}
		return nil
	})
	// The broker's log reaches the test through a pipe: a topic created
	// now logs a line after everything the rejoin could have logged.
	sentinel := topicName(t, "sentinel")
	mustCreateTopic(t, adm, sentinel, 1, nil)
	eventually(t, opTimeout, "the broker logging the sentinel topic", func() error {
		if !strings.Contains(b.Output(), "created topic "+sentinel) {
			return fmt.Errorf("not logged yet")
		}
		return nil
	})
	out := b.Output()
	i := strings.Index(out, "replaced "+oldID)
	if i < 0 {
		t.Fatalf("the broker never logged static member b replacing %s", oldID)
	}
	for _, line := range strings.Split(out[i:], "\n") {
		if strings.Contains(line, "group "+group+": ") && (strings.Contains(line, "preparing to rebalance") || strings.Contains(line, "is stable")) {
			t.Errorf("static member b's restart rebalanced the group: %s", line)
		}
	}
	_ = a
}

// describeAssignment maps each static instance id to its sorted
// partitions, and returns instance b's member id.
func describeAssignment(t testing.TB, adm *kadm.Client, group string) (map[string][]int32, string) {
	t.Helper()
	dg, err := adm.DescribeGroups(testCtx(t, opTimeout), group)
	if err != nil {
		t.Fatalf("DescribeGroups: %v", err)
	}
	out, bID := map[string][]int32{}, ""
	for _, m := range dg[group].Members {
		if m.ClientHost != "/127.0.0.1" {
			t.Errorf("member %s: client host %q, want /127.0.0.1 (the client's address, as Kafka shows it)", m.MemberID, m.ClientHost)
		}
		ca, _ := m.Assigned.AsConsumer()
		var ps []int32
		for _, at := range ca.Topics {
			ps = append(ps, at.Partitions...)
		}
		sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
		id := m.MemberID
		if m.InstanceID != nil {
			id = *m.InstanceID
		}
		out[id] = ps
		if id == "b" {
			bID = m.MemberID
		}
	}
	return out, bID
}
