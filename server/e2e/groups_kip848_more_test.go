package e2e

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// readFrom is how many records m has read from topic.
func (m *member) readFrom(topic string) int {
	n := 0
	for _, r := range m.records() {
		if r.Topic == topic {
			n++
		}
	}
	return n
}

// TestGroupsFranzKIP848Regex: franz-go's regex consumer on the KIP-848
// protocol sends its pattern as SubscribedTopicRegex; the broker resolves
// it, assigns the matching topics, and assigns a matching topic created
// while the member runs, never one that does not match.
func TestGroupsFranzKIP848Regex(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("group.initial.rebalance.delay.ms", "0"), WithConfig("group.consumer.heartbeat.interval.ms", "300"))
	adm := b.Admin(t)
	prefix, group := topicName(t, "orders"), topicName(t, "group")
	first, later, other := prefix+"-eu", prefix+"-us", topicName(t, "audit")
	mustCreateTopic(t, adm, first, groupPartitions, nil)
	mustCreateTopic(t, adm, other, groupPartitions, nil)
	produceSpread(t, b, first, 0, 12)
	produceSpread(t, b, other, 0, 12)

	m := startMember(t, b, group, "^"+regexp.QuoteMeta(prefix)+"-.*$",
		kgo.ConsumeRegex(), kgo.Balancers(kgo.StickyBalancer()), kgo.ServerSideBalancer())
	waitOwners848(t, adm, group, first, 1)
	eventually(t, opTimeout, "the member reading "+first, func() error {
		if n := m.readFrom(first); n != 12 {
			return fmt.Errorf("read %d of 12", n)
		}
		return nil
	})

	mustCreateTopic(t, adm, later, groupPartitions, nil)
	produceSpread(t, b, later, 0, 12)
	waitOwners848(t, adm, group, later, 1)
	eventually(t, opTimeout, "the member reading "+later+", created after it joined", func() error {
		if n := m.readFrom(later); n != 12 {
			return fmt.Errorf("read %d of 12", n)
		}
		return nil
	})
	if n := m.readFrom(other); n != 0 {
		t.Fatalf("the member read %d records of %s, which the regex does not match", n, other)
	}
	dg, err := adm.DescribeConsumerGroups(testCtx(t, opTimeout), group)
	if err != nil {
		t.Fatal(err)
	}
	for _, dm := range dg[group].Members {
		if dm.SubscribedTopicRegex == nil { // the client resolving the regex itself would pass the rest
			t.Fatalf("%s subscribed by names %v, not by regex", dm.MemberID, dm.SubscribedTopics)
		}
		if _, ok := dm.Assignment[other]; ok {
			t.Fatalf("%s assigned %s: %v", dm.MemberID, other, dm.Assignment)
		}
	}
}

// TestGroupsFranzKIP848Restart: a KIP-848 group outlives a broker crash.
// The restarted broker loads the group from __consumer_offsets; the two
// members heartbeat on under their ids and epochs (a member the broker
// forgot would rejoin at a new epoch and lose its partitions), and a third
// member joining afterwards moves the group epoch by exactly one.
func TestGroupsFranzKIP848Restart(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b, adm, topic, group := start848(t, 12)
	var lost atomic.Int32
	opts := []kgo.Opt{kgo.Balancers(kgo.StickyBalancer()), kgo.ServerSideBalancer(),
		kgo.OnPartitionsLost(func(context.Context, *kgo.Client, map[string][]int32) { lost.Add(1) })}
	startMember(t, b, group, topic, opts...)
	startMember(t, b, group, topic, opts...)
	waitOwners848(t, adm, group, topic, 2)
	before := describe848(t, adm, group)

	b.KillAndRestart()
	adm = b.Admin(t)
	if after := describe848(t, adm, group); after.Epoch != before.Epoch || !maps.Equal(after.Members, before.Members) {
		t.Fatalf("loaded after the restart: epoch %d members %v; before: epoch %d members %v", after.Epoch, after.Members, before.Epoch, before.Members)
	}
	startMember(t, b, group, topic, opts...)
	waitOwners848(t, adm, group, topic, 3)
	after := describe848(t, adm, group)
	if after.Epoch != before.Epoch+1 {
		t.Fatalf("group epoch %d after a third member joined, was %d before the restart: the members rejoined", after.Epoch, before.Epoch)
	}
	for id := range before.Members {
		if _, ok := after.Members[id]; !ok {
			t.Fatalf("member %s is gone after the restart: %v", id, after.Members)
		}
	}
	if n := lost.Load(); n != 0 {
		t.Fatalf("members lost their partitions %d times", n)
	}
}

type described848 struct {
	Epoch   int32
	Members map[string]int32 // member id → member epoch
}

func describe848(t testing.TB, adm *kadm.Client, group string) described848 {
	t.Helper()
	dg, err := adm.DescribeConsumerGroups(testCtx(t, opTimeout), group)
	if err != nil {
		t.Fatal(err)
	}
	g := dg[group]
	if g.Err != nil {
		t.Fatal(g.Err)
	}
	d := described848{Epoch: g.Epoch, Members: map[string]int32{}}
	for _, m := range g.Members {
		d.Members[m.MemberID] = m.MemberEpoch
	}
	return d
}

// TestGroupsFranzKIP848Mixed: franz-go's classic consumer (cooperative-
// sticky, JoinGroup/SyncGroup) and its KIP-848 consumer share one group,
// in both orders: a classic member joining a consumer group is served by
// it, and a KIP-848 member joining a stable classic group upgrades it.
// Every partition has one owner, and between them they read every record.
// When the KIP-848 member leaves, the group downgrades to a classic one
// and the classic member goes on alone.
func TestGroupsFranzKIP848Mixed(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	next := []kgo.Opt{kgo.Balancers(kgo.StickyBalancer()), kgo.ServerSideBalancer()}
	classic := []kgo.Opt{kgo.Balancers(kgo.CooperativeStickyBalancer())}
	for _, tc := range []struct {
		name          string
		first, second []kgo.Opt
		nextFirst     bool // the first member is the KIP-848 one
	}{
		{"classic-joins-consumer-group", next, classic, true},
		{"consumer-joins-classic-group", classic, next, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, adm, topic, group := start848(t, 12)
			m1 := startMember(t, b, group, topic, tc.first...)
			waitRead(t, m1, 2)
			m2 := startMember(t, b, group, topic, tc.second...)
			waitOwners848(t, adm, group, topic, 2)
			produceSpread(t, b, topic, 12, 12)
			eventually(t, opTimeout, "the two members reading every record", func() error {
				n := map[int32]int64{}
				for _, m := range []*member{m1, m2} {
					for p, o := range m.next() {
						n[p] = max(n[p], o)
					}
				}
				for p := int32(0); p < groupPartitions; p++ {
					if n[p] < 4 {
						return fmt.Errorf("partition %d read up to %d", p, n[p])
					}
				}
				return nil
			})
			if len(m2.records()) == 0 {
				t.Fatalf("the second member read nothing")
			}

			// The KIP-848 member leaves: the group is a classic one again,
			// which the classic member rebalances alone and reads on.
			left, stays := m2, m1
			if tc.nextFirst {
				left, stays = m1, m2
			}
			left.close()
			eventually(t, opTimeout, "a stable classic group of one member", func() error {
				dg, err := adm.DescribeGroups(context.Background(), group)
				if err != nil {
					return err
				}
				if g := dg[group]; g.Err != nil || g.State != "Stable" || len(g.Members) != 1 {
					return fmt.Errorf("%v %s with %d members", g.Err, g.State, len(g.Members))
				}
				return nil
			})
			produceSpread(t, b, topic, 24, 12)
			waitRead(t, stays, 6)
		})
	}
}
