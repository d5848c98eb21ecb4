package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// waitOwners848 is waitOwners for a KIP-848 group, read back with
// ConsumerGroupDescribe: stable, with the given members, every partition
// of topic owned by exactly one member and every member owning some.
func waitOwners848(t testing.TB, adm *kadm.Client, group, topic string, members int) {
	t.Helper()
	eventually(t, opTimeout, fmt.Sprintf("consumer group %s: %d members owning %s", group, members, topic), func() error {
		dg, err := adm.DescribeConsumerGroups(context.Background(), group)
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
			owned[m.MemberID] = nil
			for p := range m.Assignment[topic] {
				owned[m.MemberID] = append(owned[m.MemberID], p)
			}
		}
		return checkOwners(owned)
	})
}

// start848 starts a broker for KIP-848 groups (members reconcile on
// heartbeats: they are frequent), with a topic of groupPartitions
// partitions holding n records spread over them, and names a group.
func start848(t *testing.T, n int) (b *Broker, adm *kadm.Client, topic, group string) {
	b = startBroker(t, WithConfig("group.initial.rebalance.delay.ms", "0"), WithConfig("group.consumer.heartbeat.interval.ms", "300"))
	adm = b.Admin(t)
	topic, group = topicName(t, ""), topicName(t, "group")
	mustCreateTopic(t, adm, topic, groupPartitions, nil)
	produceSpread(t, b, topic, 0, n)
	return b, adm, topic, group
}

// TestGroupsFranzKIP848 runs franz-go's KIP-848 consumer (the broker
// assigns, with its "uniform" or "range" assignor) through members joining
// and leaving, a SIGKILL and restart, and a new member resuming from the
// committed offsets.
func TestGroupsFranzKIP848(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	for _, tc := range []struct {
		name     string
		balancer kgo.GroupBalancer
	}{
		{"uniform", kgo.StickyBalancer()},
		{"range", kgo.RangeBalancer()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, adm, topic, group := start848(t, 60)
			opts := []kgo.Opt{kgo.Balancers(tc.balancer), kgo.ServerSideBalancer()}

			m1 := startMember(t, b, group, topic, opts...)
			waitOwners848(t, adm, group, topic, 1)
			m2 := startMember(t, b, group, topic, opts...)
			waitOwners848(t, adm, group, topic, 2)
			m3 := startMember(t, b, group, topic, opts...)
			waitOwners848(t, adm, group, topic, 3)
			m2.close()
			waitOwners848(t, adm, group, topic, 2)
			m3.close()
			waitOwners848(t, adm, group, topic, 1)

			waitRead(t, m1, 10)
			if err := m1.cl.CommitUncommittedOffsets(testCtx(t, opTimeout)); err != nil {
				t.Fatalf("commit: %v", err)
			}
			waitCommitted(t, adm, group, topic, 10)
			m1.close()

			b.KillAndRestart()
			adm = b.Admin(t)
			waitCommitted(t, adm, group, topic, 10)
			produceSpread(t, b, topic, 60, 30)
			m4 := startMember(t, b, group, topic, opts...)
			waitRead(t, m4, 15)
			for _, r := range m4.records() {
				if r.Offset < 10 {
					t.Fatalf("the new member read %s/%d offset %d, below the committed 10", r.Topic, r.Partition, r.Offset)
				}
			}
		})
	}
}
