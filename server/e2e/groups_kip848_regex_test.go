package e2e

import (
	"fmt"
	"regexp"
	"testing"

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
