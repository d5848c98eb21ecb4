package e2e

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestTopicRecreated: a topic deleted and at once created again under the
// same name, by CreateTopics or by auto-creation, is a new topic: a new
// topic id, offsets from 0, none of the old records (KIP-516), and a
// Fetch that names the old id is refused with UNKNOWN_TOPIC_ID.
func TestTopicRecreated(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "true"))
	bs := []*Broker{b}
	t.Run("CreateTopics", func(t *testing.T) {
		checkRecreated(t, bs, 1, func(t *testing.T, adm *kadm.Client, topic string) {
			mustCreate(t, adm, topic, 1)
		})
	})
	t.Run("AutoCreate", func(t *testing.T) {
		checkRecreated(t, bs, 1, nil)
	})
}

// TestClusterTopicRecreated: the same on three brokers, with every replica
// of the new topic holding the new records only.
func TestClusterTopicRecreated(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3, WithConfig("default.replication.factor", "3"))
	t.Run("CreateTopics", func(t *testing.T) {
		checkRecreated(t, bs, 3, func(t *testing.T, adm *kadm.Client, topic string) {
			mustCreate(t, adm, topic, 3)
		})
	})
	t.Run("AutoCreate", func(t *testing.T) {
		checkRecreated(t, bs, 3, nil)
	})
	// A replica down while its topic is deleted and created again comes
	// back with the old topic's log: it must drop it, copy the new one,
	// and, leading, serve the new records only.
	t.Run("ReplicaDown", func(t *testing.T) {
		cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
		adm := kadm.NewClient(cl)
		topic := topicName(t, "")
		createAssigned(t, cl, topic, []int32{1, 2})
		waitPartition(t, cl, topic, "1 leading with 2 in sync", func(p partition) bool { return p.Leader == 1 && len(p.ISR) == 2 })
		produceAll(t, bs, topic, "old-0", "old-1", "old-2", "old-3", "old-4")
		oldID := topicID(t, cl, topic)
		bs[1].Kill()
		resp, err := adm.DeleteTopic(testCtx(t, opTimeout), topic)
		if err != nil || resp.Err != nil {
			t.Fatalf("DeleteTopic: %v %v", err, resp.Err)
		}
		createAssigned(t, cl, topic, []int32{1, 2})
		produceAll(t, bs, topic, "new-0", "new-1")
		if topicID(t, cl, topic) == oldID {
			t.Fatalf("re-created topic kept the id %v", oldID)
		}
		bs[1].Restart()
		waitPartition(t, cl, topic, "2 back in sync", func(p partition) bool { return p.Leader == 1 && len(p.ISR) == 2 })
		bs[0].Kill()
		waitPartition(t, cl, topic, "2 leading", func(p partition) bool { return p.Leader == 2 })
		if got := readFromStart(t, bs, topic, 2); !slices.Equal(got, []string{"new-0", "new-1"}) {
			t.Errorf("the replica that was down serves %q, want the new records only", got)
		}
		bs[0].Restart()
	})
}

// checkRecreated creates a topic with rf replicas, writes old records,
// deletes it and creates it again at once with recreate (nil: by producing
// to it, auto-creation), writes new records, and checks that the new topic
// has a new id and only the new records, on every replica.
func checkRecreated(t *testing.T, bs []*Broker, rf int16, recreate func(*testing.T, *kadm.Client, string)) {
	ctx := testCtx(t, 2*opTimeout)
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	adm := kadm.NewClient(cl)
	topic := topicName(t, "")
	mustCreate(t, adm, topic, rf)
	old := []string{"old-0", "old-1", "old-2", "old-3", "old-4"}
	produceAll(t, bs, topic, old...)
	oldID := topicID(t, cl, topic)

	resp, err := adm.DeleteTopic(ctx, topic)
	if err != nil || resp.Err != nil {
		t.Fatalf("DeleteTopic: %v %v", err, resp.Err)
	}
	if recreate != nil {
		recreate(t, adm, topic)
	}
	// Fewer than before, so an old record read at offset 0..1 would show.
	fresh := []string{"new-0", "new-1"}
	produceAll(t, bs, topic, fresh...)
	newID := topicID(t, cl, topic)
	if newID == oldID || newID == (kadm.TopicID{}) {
		t.Fatalf("re-created topic id %v, the deleted one had %v", newID, oldID)
	}
	if got := readFromStart(t, bs, topic, len(fresh)); !slices.Equal(got, fresh) {
		t.Errorf("the re-created topic holds %q, want %q", got, fresh)
	}

	// Every replica: the old id is unknown, and the log is the new one
	// (same size everywhere: the leader's records and nothing else).
	for _, b := range bs {
		if code := fetchByID(t, cl, b.NodeID, oldID); code != kerr.UnknownTopicID.Code {
			t.Errorf("broker %d: Fetch by the deleted topic's id: error %d, want UNKNOWN_TOPIC_ID", b.NodeID, code)
		}
	}
	eventually(t, 30*time.Second, "every replica of the new topic the same size", func() error {
		all, err := adm.DescribeAllLogDirs(testCtx(t, 5*time.Second), kadm.TopicsSet{topic: {0: {}}})
		if err != nil {
			return err
		}
		sizes := map[int64]int{}
		all.Each(func(d kadm.DescribedLogDir) {
			d.Topics.Each(func(p kadm.DescribedLogDirPartition) { sizes[p.Size]++ })
		})
		if len(sizes) != 1 || sizes[maxKey(sizes)] != int(rf) {
			return fmt.Errorf("replica sizes %v, want %d replicas of one size", sizes, rf)
		}
		return nil
	})
}

func mustCreate(t *testing.T, adm *kadm.Client, topic string, rf int16) {
	t.Helper()
	// Retried: in a cluster the deletion may not have reached the
	// answering broker's metadata yet.
	eventually(t, 30*time.Second, "creating "+topic, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := adm.CreateTopic(ctx, 1, rf, nil, topic)
		if err != nil {
			return err
		}
		if resp.Err != nil {
			return fmt.Errorf("%w (%s)", resp.Err, resp.ErrMessage)
		}
		return nil
	})
}

func produceAll(t *testing.T, bs []*Broker, topic string, values ...string) {
	t.Helper()
	cl := clusterClient(t, bs, kgo.DefaultProduceTopic(topic), kgo.AllowAutoTopicCreation(), kgo.RecordRetries(100))
	var rs []*kgo.Record
	for _, v := range values {
		rs = append(rs, kgo.StringRecord(v))
	}
	if err := cl.ProduceSync(testCtx(t, opTimeout), rs...).FirstErr(); err != nil {
		t.Fatalf("producing to %s: %v", topic, err)
	}
}

// topicID is the topic's id as a broker's Metadata answers it (not
// kadm's, which may answer from the client's metadata cache).
func topicID(t *testing.T, cl *kgo.Client, topic string) kadm.TopicID {
	t.Helper()
	var id kadm.TopicID
	eventually(t, 30*time.Second, "the id of "+topic, func() error {
		req := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr(topic)
		req.Topics = append(req.Topics, rt)
		resp, err := req.RequestWith(testCtx(t, 5*time.Second), cl)
		if err != nil {
			return err
		}
		if len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 {
			return fmt.Errorf("answer %+v", resp.Topics)
		}
		id = resp.Topics[0].TopicID
		return nil
	})
	return id
}

// readFromStart reads partition 0 of topic from offset 0 until it has n
// records, and then checks that the end offset is n: nothing else is
// there to read.
func readFromStart(t *testing.T, bs []*Broker, topic string, n int) []string {
	t.Helper()
	cl := clusterClient(t, bs, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}))
	ctx := testCtx(t, opTimeout)
	var got []string
	for len(got) < n && ctx.Err() == nil {
		fs := cl.PollFetches(ctx)
		fs.EachError(func(_ string, _ int32, err error) {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Logf("fetch: %v", err)
			}
		})
		fs.EachRecord(func(r *kgo.Record) {
			if r.Offset != int64(len(got)) {
				t.Errorf("record at offset %d after %d records", r.Offset, len(got))
			}
			got = append(got, string(r.Value))
		})
	}
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatalf("ListEndOffsets: %v", err)
	}
	if o, _ := ends.Lookup(topic, 0); o.Offset != int64(n) {
		t.Errorf("end offset %d, want %d", o.Offset, n)
	}
	return got
}

// fetchByID sends a Fetch v13 (topics by id) for partition 0 of topic id
// to broker node and returns the partition's error code.
func fetchByID(t *testing.T, cl *kgo.Client, node int32, id kadm.TopicID) int16 {
	t.Helper()
	req := kmsg.NewPtrFetchRequest()
	req.Version = 13
	req.ReplicaID, req.MaxWaitMillis, req.MaxBytes, req.SessionEpoch = -1, 10, 1<<20, -1
	rt := kmsg.NewFetchRequestTopic()
	rt.TopicID = id
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.CurrentLeaderEpoch, rp.LogStartOffset, rp.PartitionMaxBytes = -1, -1, 1<<20
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp, err := req.RequestWith(testCtx(t, opTimeout), cl.Broker(int(node)))
	if err != nil {
		t.Fatalf("Fetch by id from broker %d: %v", node, err)
	}
	if resp.ErrorCode != 0 {
		return resp.ErrorCode
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		t.Fatalf("Fetch by id from broker %d: %d topics in the answer", node, len(resp.Topics))
	}
	return resp.Topics[0].Partitions[0].ErrorCode
}

func maxKey(m map[int64]int) int64 {
	var k int64
	for x := range m {
		k = max(k, x)
	}
	return k
}
