package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestElectLeaders: a single broker leads every partition it has, as
// their only (and preferred) replica: kadm's, sarama's and kafka-go's
// elections are
// ELECTION_NOT_NEEDED, never a success that elected nothing; all
// partitions asked for answer none; a missing one is unknown.
func TestElectLeaders(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, opTimeout)
	adm := b.Admin(t)
	topic := topicName(t, "")
	mustCreateTopic(t, adm, topic, 2, nil)

	for _, how := range []kadm.ElectLeadersHow{kadm.ElectPreferredReplica, kadm.ElectLiveReplica} {
		rs, err := adm.ElectLeaders(ctx, how, kadm.TopicsSet{topic: {0: {}, 1: {}}, topic + "-missing": {0: {}}})
		if err != nil {
			t.Fatalf("ElectLeaders %v: %v", how, err)
		}
		for p := range int32(2) {
			if r := rs[topic][p]; !errors.Is(r.Err, kerr.ElectionNotNeeded) {
				t.Errorf("ElectLeaders %v %s-%d: %v, want ELECTION_NOT_NEEDED", how, topic, p, r.Err)
			}
		}
		if r := rs[topic+"-missing"][0]; !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			t.Errorf("ElectLeaders %v on a missing topic: %v, want UNKNOWN_TOPIC_OR_PARTITION", how, r.Err)
		}
		all, err := adm.ElectLeaders(ctx, how, nil)
		if err != nil || len(all) != 0 {
			t.Errorf("ElectLeaders %v for all partitions: %v %v, want no results (none needs an election)", how, err, all)
		}
	}

	admin := saramaAdmin(t, b.Addr)
	sr, err := admin.ElectLeaders(sarama.PreferredElection, map[string][]int32{topic: {0, 1}})
	if err != nil || len(sr[topic]) != 2 {
		t.Fatalf("sarama ElectLeaders: %v %+v", err, sr)
	}
	for p, r := range sr[topic] {
		if r.ErrorCode != sarama.ErrElectionNotNeeded {
			t.Errorf("sarama ElectLeaders partition %d: %v, want ELECTION_NOT_NEEDED", p, r.ErrorCode)
		}
	}

	client := &kafka.Client{Addr: kafka.TCP(b.Addr), Timeout: 10 * time.Second}
	resp, err := client.ElectLeaders(ctx, &kafka.ElectLeadersRequest{Topic: topic, Partitions: []int{0, 1}})
	if err != nil || resp.Error != nil {
		t.Fatalf("kafka-go ElectLeaders: %v %v", err, resp)
	}
	if len(resp.PartitionResults) != 2 {
		t.Fatalf("kafka-go ElectLeaders: %d results, want 2", len(resp.PartitionResults))
	}
	for _, r := range resp.PartitionResults {
		if !errors.Is(r.Error, kafka.ElectionNotNeeded) {
			t.Errorf("kafka-go ElectLeaders partition %d: %v, want ELECTION_NOT_NEEDED", r.Partition, r.Error)
		}
	}
}

// TestClusterElectLeaders: the controller elects. Preferred: after its
// preferred leader came back, a partition is led by it again, with every
// record; a second election is not needed. Unclean: a partition whose
// only in-sync replica is down gets the live out-of-sync replica as its
// leader only when asked, and takes writes again.
func TestClusterElectLeaders(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("replica.lag.time.max.ms", "2000"))
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	adm := kadm.NewClient(cl)
	ctx := testCtx(t, 3*opTimeout)

	t.Run("Preferred", func(t *testing.T) {
		topic := topicName(t, "")
		createFullyReplicated(t, adm, 1, topic)
		p := waitPartition(t, cl, topic, "a leader", func(p partition) bool { return p.Leader >= 0 })
		pref := p.Replicas[0]
		if p.Leader != pref {
			t.Fatalf("a new partition led by %d, not its preferred replica %d", p.Leader, pref)
		}
		produceAll(t, bs, topic, "a", "b")
		bs[pref-1].Kill()
		waitPartition(t, cl, topic, "another leader", func(p partition) bool { return p.Leader >= 0 && p.Leader != pref })
		produceAll(t, bs, topic, "c")
		bs[pref-1].Restart()
		waitPartition(t, cl, topic, "the preferred replica back in the ISR", func(p partition) bool {
			return slices.Contains(p.ISR, pref) && p.Leader != pref
		})

		rs, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}}})
		if err != nil || rs[topic][0].Err != nil {
			t.Fatalf("ElectLeaders preferred: %v %+v", err, rs)
		}
		waitPartition(t, cl, topic, "the preferred replica leading", func(p partition) bool { return p.Leader == pref })
		rs, err = adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}}})
		if err != nil || !errors.Is(rs[topic][0].Err, kerr.ElectionNotNeeded) {
			t.Errorf("ElectLeaders preferred again: %v %+v, want ELECTION_NOT_NEEDED", err, rs)
		}
		// kafka-go, through the broker Metadata names as controller.
		client := &kafka.Client{Addr: kafka.TCP(seeds(bs)...), Timeout: 10 * time.Second}
		resp, err := client.ElectLeaders(ctx, &kafka.ElectLeadersRequest{Topic: topic, Partitions: []int{0}})
		if err != nil || resp.Error != nil || len(resp.PartitionResults) != 1 || !errors.Is(resp.PartitionResults[0].Error, kafka.ElectionNotNeeded) {
			t.Errorf("kafka-go ElectLeaders: %v %+v, want ELECTION_NOT_NEEDED", err, resp)
		}
		produceAll(t, bs, topic, "d")
		if got := readFromStart(t, bs, topic, 4); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
			t.Errorf("after the election the partition holds %q", got)
		}
	})

	t.Run("Unclean", func(t *testing.T) {
		for _, b := range bs {
			if !b.Running() {
				b.Restart()
			}
		}
		topic := topicName(t, "")
		createAssigned(t, cl, topic, []int32{1, 2})
		waitPartition(t, cl, topic, "1 leading with 2 in sync", func(p partition) bool { return p.Leader == 1 && len(p.ISR) == 2 })
		bs[1].Kill() // broker 2 falls out of the ISR
		waitPartition(t, cl, topic, "2 out of the ISR", func(p partition) bool { return slices.Equal(p.ISR, []int32{1}) })
		produceAll(t, bs, topic, "only on 1")
		bs[0].Kill() // the only in-sync replica
		bs[1].Restart()
		waitPartition(t, cl, topic, "no leader, 2 back but out of sync", func(p partition) bool {
			return p.Leader == -1 && slices.Equal(p.ISR, []int32{1})
		})
		rs, err := adm.ElectLeaders(ctx, kadm.ElectPreferredReplica, kadm.TopicsSet{topic: {0: {}}})
		if err != nil || !errors.Is(rs[topic][0].Err, kerr.PreferredLeaderNotAvailable) {
			t.Errorf("ElectLeaders preferred with the preferred replica down: %v %+v, want PREFERRED_LEADER_NOT_AVAILABLE", err, rs)
		}
		rs, err = adm.ElectLeaders(ctx, kadm.ElectLiveReplica, kadm.TopicsSet{topic: {0: {}}})
		if err != nil || rs[topic][0].Err != nil {
			t.Fatalf("ElectLeaders unclean: %v %+v", err, rs)
		}
		waitPartition(t, cl, topic, "2 leading", func(p partition) bool { return p.Leader == 2 && slices.Equal(p.ISR, []int32{2}) })
		rs, err = adm.ElectLeaders(ctx, kadm.ElectLiveReplica, kadm.TopicsSet{topic: {0: {}}})
		if err != nil || !errors.Is(rs[topic][0].Err, kerr.ElectionNotNeeded) {
			t.Errorf("ElectLeaders unclean with a leader: %v %+v, want ELECTION_NOT_NEEDED", err, rs)
		}
		produceAll(t, bs, topic, "after")
		bs[0].Restart()
	})
}

// createAssigned creates a one-partition topic on the given replicas, in
// order (the first is the preferred leader).
func createAssigned(t *testing.T, cl *kgo.Client, topic string, replicas []int32) {
	t.Helper()
	eventually(t, 30*time.Second, "creating "+topic, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req := kmsg.NewPtrCreateTopicsRequest()
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = topic, -1, -1
		ra := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
		ra.Partition, ra.Replicas = 0, replicas
		rt.ReplicaAssignment = append(rt.ReplicaAssignment, ra)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return err
		}
		if err := kerr.ErrorForCode(resp.Topics[0].ErrorCode); err != nil {
			return fmt.Errorf("%w", err)
		}
		return nil
	})
}
