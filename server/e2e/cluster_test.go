package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/gregor-kafka/gregor/core/record"
)

// TestClusterLeaderKill: three processes, RF=3, min.insync.replicas=2; an
// idempotent acks=all producer writes numbered records and a consumer
// (no group) reads them while the partition leader is SIGKILLed and later
// restarted. The consumer carries on after the election: while the old
// leader is still down it reads records produced only after the new leader
// was elected. In the end it has read every offset once, in order, and the
// log holds every acknowledged record exactly once and no record twice.
func TestClusterLeaderKill(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	cl, p := createReplicated(t, bs, topic)
	tl := startTail(t, bs, topic)

	prod := clusterClient(t, bs,
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.RecordRetries(1<<30),
		kgo.RetryTimeout(60*time.Second),
		kgo.ProducerLinger(time.Millisecond),
	)
	var (
		mu     sync.Mutex
		acked  = map[int]bool{}
		failed int
		next   int // the number of the next record handed to the producer
	)
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			mu.Lock()
			i := next
			next++
			mu.Unlock()
			prod.Produce(ctx, &kgo.Record{Value: []byte(strconv.Itoa(i))}, func(_ *kgo.Record, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					failed++
					return
				}
				acked[i] = true
			})
			if i%50 == 49 {
				_ = prod.Flush(ctx)
			}
		}
	}()
	waitAcked := func(n int, what string) {
		eventually(t, 60*time.Second, what, func() error {
			if c := count(); c < n {
				return fmt.Errorf("%d records acknowledged, want %d", c, n)
			}
			return nil
		})
	}

	waitAcked(500, "records acknowledged before the kill")
	p, err := partitionState(cl, topic)
	if err != nil {
		t.Fatal(err)
	}
	leader := bs[p.Leader-1]
	t.Logf("killing the leader, broker %d, after %d acks", p.Leader, count())
	leader.Kill()
	p = waitPartition(t, cl, topic, "a new leader", func(p partition) bool {
		return p.Leader >= 0 && p.Leader != leader.NodeID
	})
	mu.Lock()
	elected := next
	mu.Unlock()
	t.Logf("broker %d leads; records from %d on were produced after the election", p.Leader, elected)
	tl.waitFor(t, "the consumer reading a record produced after the election", func(vals []string) error {
		if len(vals) == 0 {
			return errors.New("nothing read")
		}
		if last, _ := strconv.Atoi(vals[len(vals)-1]); last < elected {
			return fmt.Errorf("last read record %d", last)
		}
		return nil
	})
	waitAcked(count()+500, "records acknowledged by the new leader")
	t.Logf("restarting broker %d after %d acks", leader.NodeID, count())
	leader.Restart()
	waitPartition(t, cl, topic, "the restarted broker back in the ISR", func(p partition) bool {
		return slices.Contains(p.ISR, leader.NodeID)
	})
	waitAcked(count()+300, "records acknowledged after the restart")
	cancel()
	<-done
	flushCtx, fc := context.WithTimeout(context.Background(), 30*time.Second)
	defer fc()
	_ = prod.Flush(flushCtx)

	end, err := highWatermark(cl, topic)
	if err != nil {
		t.Fatal(err)
	}
	vals := tl.upTo(t, end)
	// The producer numbered the records in the order it was handed them,
	// and idempotence keeps that order through retries: strictly
	// increasing numbers mean nothing is in the log twice.
	in := make(map[int]bool, len(vals))
	prev := -1
	for o, v := range vals {
		i, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("offset %d: bad value %q", o, v)
		}
		if i <= prev {
			t.Fatalf("offset %d holds record %d after record %d: duplicated or reordered", o, i, prev)
		}
		prev, in[i] = i, true
	}
	mu.Lock()
	defer mu.Unlock()
	lost := 0
	for i := range acked {
		if !in[i] {
			lost++
			if lost <= 10 {
				t.Errorf("acknowledged record %d is not in the log", i)
			}
		}
	}
	t.Logf("%d acknowledged, %d failed, %d read (end offset %d), %d lost", len(acked), failed, len(vals), end, lost)
	if lost > 0 {
		t.Errorf("%d acknowledged records lost", lost)
	}
}

// produceTimeout bounds how long a leader may wait for its ISR before it
// answers an acks=all write (the Produce request's timeout).
const produceTimeout = 3 * time.Second

// belowProduceV13 lets a client send hand-built Produce requests, which
// name topics as v13 no longer does.
var belowProduceV13 = kgo.MaxVersions(kversion.V3_6_0())

// writer writes one record per Produce request to partition 0 of topic,
// built by hand and sent once to the partition's leader, so the test sees
// each exact error code and no client retry writes a record twice.
type writer struct {
	byAcks map[int16]*kgo.Client // franz-go sends a Produce with its client's acks
	topic  string
	leader int32
}

func newWriter(t *testing.T, bs []*Broker, topic string, leader int32) writer {
	return writer{topic: topic, leader: leader, byAcks: map[int16]*kgo.Client{
		-1: clusterClient(t, bs, belowProduceV13, kgo.RequiredAcks(kgo.AllISRAcks())),
		1:  clusterClient(t, bs, belowProduceV13, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite()),
	}}
}

// leaderView is the partition leader, for its own view of the partition.
func (w writer) leaderView() kmsg.Requestor { return w.byAcks[-1].Broker(int(w.leader)) }

// expect writes value with acks and fails the test unless the answer's
// error is want and, for an acknowledged write (want nil), its base offset
// is at.
func (w writer) expect(t *testing.T, acks int16, value string, want *kerr.Error, at int64) {
	t.Helper()
	w.check(t, acks, value, want, at, w.produce(t, acks, value))
}

// expectAcked writes value with acks=all until the leader acknowledges it
// at offset at, retrying NOT_ENOUGH_REPLICAS for up to a minute as clients
// retry it: once lost followers return, an ISR shrink the leader asked for
// while they were away can still be committed before the expansion that
// follows (AlterPartition requests apply in order). The leader refuses
// such a write before appending it, so the log still holds each
// acknowledged record once, which the callers check.
func (w writer) expectAcked(t *testing.T, value string, at int64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		sp := w.produce(t, -1, value)
		if sp.ErrorCode != kerr.NotEnoughReplicas.Code || time.Now().After(deadline) {
			w.check(t, -1, value, nil, at, sp)
			return
		}
		t.Logf("producing %q with acks=-1: %v; retrying", value, kerr.NotEnoughReplicas)
		time.Sleep(200 * time.Millisecond)
	}
}

// produce sends value with acks to the partition's leader, once.
func (w writer) produce(t *testing.T, acks int16, value string) kmsg.ProduceResponseTopicPartition {
	t.Helper()
	batch := record.NewBuilder(record.NewBatchHeader(time.Now().UnixMilli())).Add(nil, []byte(value), 0).Build()
	ctx, cancel := context.WithTimeout(context.Background(), produceTimeout+10*time.Second)
	defer cancel()
	resp, err := produceRequest(w.topic, acks, produceTimeout, batch).RequestWith(ctx, w.byAcks[acks].Broker(int(w.leader)))
	if err != nil {
		t.Fatalf("producing %q with acks=%d: %v", value, acks, err)
	}
	return resp.Topics[0].Partitions[0]
}

// check fails the test unless sp's error is want and, for an acknowledged
// write (want nil), its base offset is at.
func (w writer) check(t *testing.T, acks int16, value string, want *kerr.Error, at int64, sp kmsg.ProduceResponseTopicPartition) {
	t.Helper()
	var wantCode int16
	if want != nil {
		wantCode = want.Code
	}
	if sp.ErrorCode != wantCode || want == nil && sp.BaseOffset != at {
		t.Fatalf("producing %q with acks=%d: error %v, base offset %d; want %v, base offset %d",
			value, acks, kerr.ErrorForCode(sp.ErrorCode), sp.BaseOffset, want, at)
	}
	t.Logf("producing %q with acks=%d: error %v, base offset %d", value, acks, kerr.ErrorForCode(sp.ErrorCode), sp.BaseOffset)
}

// followersDown runs n processes, all voters of the metadata quorum, with
// an RF=3, min.insync.replicas=2 topic. It writes "before" with acks=all,
// SIGKILLs the partition's two followers, and calls down with the leader,
// which returns what it left in the log. It then restarts the followers, waits until the
// leader has them live and in its ISR and they have caught up, writes
// "after" with acks=all, and reads the log back: it must be exactly
// "before", what down left, and "after".
func followersDown(t *testing.T, n int, down func(w writer, leader *Broker) []string, opts ...BrokerOpt) {
	bs := startCluster(t, n, opts...)
	topic := topicName(t, "")
	adm, p := createReplicated(t, bs, topic)
	w := newWriter(t, bs, topic, p.Leader)
	w.expect(t, -1, "before", nil, 0)
	var followers []*Broker
	for _, r := range p.Replicas {
		if r != p.Leader {
			bs[r-1].Kill()
			followers = append(followers, bs[r-1])
		}
	}
	t.Logf("leader %d; killed followers %d and %d", p.Leader, followers[0].NodeID, followers[1].NodeID)
	want := append(append([]string{"before"}, down(w, bs[p.Leader-1])...), "after")
	for _, b := range followers {
		b.Restart()
	}
	waitPartition(t, w.leaderView(), topic, "the followers live and in the leader's ISR",
		func(p partition) bool { return len(p.ISR) == 3 && len(p.OfflineReplicas) == 0 })
	// The high watermark is the smallest log end offset in the ISR.
	eventually(t, 60*time.Second, "the followers caught up", func() error {
		hw, err := highWatermark(adm, topic)
		if err == nil && hw < int64(len(want)-1) {
			err = fmt.Errorf("high watermark %d", hw)
		}
		return err
	})
	w.expectAcked(t, "after", int64(len(want)-1))
	if got := startTail(t, bs, topic).upTo(t, int64(len(want))); !slices.Equal(got, want) {
		t.Fatalf("log %q, want %q", got, want)
	}
}

// TestClusterTwoDown: five processes, so the metadata quorum survives two
// failures. With both followers of the partition SIGKILLed, the controller
// takes them out of the ISR; then the leader refuses an acks=all write
// with NOT_ENOUGH_REPLICAS before appending it, and accepts an acks=1
// write, as Kafka does. Once the followers have rejoined the ISR, acks=all
// writes are acknowledged again, and the log holds exactly the
// acknowledged records, each once, and not the refused one.
func TestClusterTwoDown(t *testing.T) {
	t.Parallel()
	followersDown(t, 5, func(w writer, _ *Broker) []string {
		waitPartition(t, w.leaderView(), w.topic, "the leader's ISR shrunk to itself",
			func(p partition) bool { return slices.Equal(p.ISR, []int32{w.leader}) })
		w.expect(t, -1, "refused", kerr.NotEnoughReplicas, 0)
		w.expect(t, 1, "acks=1", nil, 1)
		return []string{"acks=1"}
	})
}

// TestClusterQuorumLost: three processes, so killing both followers of
// the partition also loses the metadata quorum. The leader finds them
// lagging (replica.lag.time.max.ms) and asks to shrink the ISR, but
// nothing can change the ISR without the controller, and the leader does
// not do it alone: an acks=all write is appended but never acknowledged
// (REQUEST_TIMED_OUT), while acks=1 is still served. Once the followers
// are back the timed-out record is committed like the others; Kafka
// promises nothing either way about a write that timed out, only that it
// was not acknowledged.
func TestClusterQuorumLost(t *testing.T) {
	t.Parallel()
	followersDown(t, 3, func(w writer, leader *Broker) []string {
		eventually(t, 30*time.Second, "the leader asking to shrink the ISR", func() error {
			if !mentions(leader.Output(), w.topic, "shrinking the isr") {
				return errors.New("not yet")
			}
			return nil
		})
		if p, err := partitionState(w.leaderView(), w.topic); err != nil || len(p.ISR) != 3 {
			t.Fatalf("the leader's view of the partition: isr %v, %v; want all three still in the ISR", p.ISR, err)
		}
		w.expect(t, -1, "timed out", kerr.RequestTimedOut, 0)
		w.expect(t, 1, "acks=1", nil, 2)
		return []string{"timed out", "acks=1"}
	}, WithConfig("replica.lag.time.max.ms", "2000"))
}

// TestClusterTopicAdmin: on a three-process cluster a kadm client creates
// a topic, adds partitions, produces to a new partition through its
// leader, and deletes the topic; every broker reports the same cluster id
// in Metadata and DescribeCluster. Adding partitions and deleting topics
// go through the controller; each broker opens and removes its own logs.
func TestClusterTopicAdmin(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	adm := kadm.NewClient(cl)
	ctx := testCtx(t, 2*time.Minute)

	// One cluster id, whichever broker answers.
	var cid string
	for _, b := range bs {
		md := kmsg.NewPtrMetadataRequest()
		mresp, err := md.RequestWith(ctx, cl.Broker(int(b.NodeID)))
		if err != nil {
			t.Fatalf("Metadata from broker %d: %v", b.NodeID, err)
		}
		dc := kmsg.NewPtrDescribeClusterRequest()
		dresp, err := dc.RequestWith(ctx, cl.Broker(int(b.NodeID)))
		if err != nil {
			t.Fatalf("DescribeCluster from broker %d: %v", b.NodeID, err)
		}
		if mresp.ClusterID == nil || *mresp.ClusterID == "" || *mresp.ClusterID != dresp.ClusterID || len(dresp.Brokers) != 3 {
			t.Fatalf("broker %d: Metadata cluster id %v, DescribeCluster %q with %d brokers", b.NodeID, mresp.ClusterID, dresp.ClusterID, len(dresp.Brokers))
		}
		if cid == "" {
			cid = dresp.ClusterID
		} else if dresp.ClusterID != cid {
			t.Fatalf("broker %d reports cluster %s, broker %d %s", b.NodeID, dresp.ClusterID, bs[0].NodeID, cid)
		}
	}
	if md, err := adm.BrokerMetadata(ctx); err != nil || md.Cluster != cid {
		t.Fatalf("kadm BrokerMetadata: cluster %q, err %v; want %s", md.Cluster, err, cid)
	}
	t.Logf("cluster id %s", cid)

	if _, err := adm.CreateTopic(ctx, 2, 2, nil, topic); err != nil {
		t.Fatal(err)
	}
	resp, err := adm.UpdatePartitions(ctx, 1, topic)
	if err != nil || !errors.Is(resp[topic].Err, kerr.InvalidPartitions) {
		t.Fatalf("shrinking: %+v, %v; want INVALID_PARTITIONS", resp[topic], err)
	}
	if resp, err = adm.ValidateUpdatePartitions(ctx, 4, topic); err != nil || resp[topic].Err != nil {
		t.Fatalf("validate only: %+v, %v", resp[topic], err)
	}
	if resp, err = adm.UpdatePartitions(ctx, 4, topic); err != nil || resp[topic].Err != nil {
		t.Fatalf("adding partitions: %+v, %v", resp[topic], err)
	}
	var leader int32
	var replicas []int32
	eventually(t, 30*time.Second, "four partitions, each led", func() error {
		md, err := adm.Metadata(ctx, topic)
		if err != nil {
			return err
		}
		td := md.Topics[topic]
		if td.Err != nil || len(td.Partitions) != 4 {
			return fmt.Errorf("err %v, %d partitions", td.Err, len(td.Partitions))
		}
		for _, p := range td.Partitions {
			if p.Leader < 0 || len(p.ISR) != 2 {
				return fmt.Errorf("partition %d: leader %d isr %v", p.Partition, p.Leader, p.ISR)
			}
		}
		leader, replicas = td.Partitions[3].Leader, td.Partitions[3].Replicas
		return nil
	})
	prod := clusterClient(t, bs, kgo.DefaultProduceTopic(topic), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()))
	if err := prod.ProduceSync(ctx, &kgo.Record{Partition: 3, Value: []byte("new")}).FirstErr(); err != nil {
		t.Fatalf("producing to the new partition 3 (leader %d): %v", leader, err)
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := ends.Lookup(topic, 3); o.Offset != 1 {
		t.Fatalf("partition 3 ends at %d, want 1", o.Offset)
	}
	for _, r := range replicas {
		if _, err := os.Stat(filepath.Join(bs[r-1].DataDir, topic+"-3")); err != nil {
			t.Errorf("replica %d of partition 3 has no log: %v", r, err)
		}
	}

	dresp, err := adm.DeleteTopic(ctx, topic)
	if err != nil || dresp.Err != nil {
		t.Fatalf("deleting: %+v, %v", dresp, err)
	}
	eventually(t, 30*time.Second, "the topic gone from every broker", func() error {
		for _, b := range bs {
			md := kmsg.NewPtrMetadataRequest()
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(topic)
			md.Topics = append(md.Topics, rt)
			mresp, err := md.RequestWith(ctx, cl.Broker(int(b.NodeID)))
			if err != nil {
				return err
			}
			if code := mresp.Topics[0].ErrorCode; code != kerr.UnknownTopicOrPartition.Code {
				return fmt.Errorf("broker %d: %v", b.NodeID, kerr.ErrorForCode(code))
			}
			dirs, _ := filepath.Glob(filepath.Join(b.DataDir, topic+"-*"))
			if len(dirs) > 0 {
				return fmt.Errorf("broker %d still has %v", b.NodeID, dirs)
			}
		}
		return nil
	})
	// kadm returns the topic's error as its error too.
	if dresp, _ = adm.DeleteTopic(ctx, topic); !errors.Is(dresp.Err, kerr.UnknownTopicOrPartition) {
		t.Fatalf("deleting again: %+v; want UNKNOWN_TOPIC_OR_PARTITION", dresp)
	}
}
