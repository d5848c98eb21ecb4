package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// startCluster starts n gregor processes that form one cluster (every node
// a broker and a voter of the metadata quorum), and waits until every
// broker sees all n registered.
func startCluster(t *testing.T, n int, opts ...BrokerOpt) []*Broker {
	t.Helper()
	requireBinary(t)
	// Every port is picked up front, all distinct: a node's Kafka or HTTP
	// port must not be the controller port of a node not started yet.
	addrs := freeAddrs(t, 3*n)
	ctl, kafka, http := addrs[:n], addrs[n:2*n], addrs[2*n:]
	var voters []string
	for i := range n {
		voters = append(voters, fmt.Sprintf("%d@%s", i+1, ctl[i]))
	}
	q := strings.Join(voters, ",")
	bs := make([]*Broker, n)
	for i := range n {
		bs[i] = startBroker(t, append([]BrokerOpt{WithAddrs(kafka[i], http[i]), WithArgs("--node-id", strconv.Itoa(i+1),
			"--controller-addr", ctl[i], "--controller-quorum", q)}, opts...)...)
		bs[i].NodeID = int32(i + 1)
	}
	for _, b := range bs {
		eventually(t, 30*time.Second, "every broker registered", func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			cl, err := kgo.NewClient(kgo.SeedBrokers(b.Addr))
			if err != nil {
				return err
			}
			defer cl.Close()
			md, err := kadm.NewClient(cl).BrokerMetadata(ctx)
			if err != nil {
				return err
			}
			if len(md.Brokers) != n {
				return fmt.Errorf("%s sees %d brokers, want %d", b.Addr, len(md.Brokers), n)
			}
			return nil
		})
	}
	return bs
}

func seeds(bs []*Broker) []string {
	var out []string
	for _, b := range bs {
		out = append(out, b.Addr)
	}
	return out
}

func clusterClient(t *testing.T, bs []*Broker, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds(bs)...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// partitionState is partition 0 of topic as the metadata of any live
// broker has it.
func partitionState(t *testing.T, adm *kadm.Client, topic string) (kadm.PartitionDetail, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	md, err := adm.Metadata(ctx, topic)
	if err != nil {
		return kadm.PartitionDetail{}, err
	}
	td, ok := md.Topics[topic]
	if !ok || td.Err != nil {
		return kadm.PartitionDetail{}, fmt.Errorf("topic %s: present=%v err=%v", topic, ok, td.Err)
	}
	p, ok := td.Partitions[0]
	if !ok {
		return kadm.PartitionDetail{}, errors.New("no partition 0")
	}
	return p, nil
}

// createReplicated creates topic with one partition, RF=3 and
// min.insync.replicas=2, and waits for a leader and a full ISR.
func createReplicated(t *testing.T, bs []*Broker, topic string) *kadm.Client {
	t.Helper()
	adm := kadm.NewClient(clusterClient(t, bs, kgo.RetryTimeout(20*time.Second)))
	two := "2"
	eventually(t, 30*time.Second, "topic created", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := adm.CreateTopic(ctx, 1, 3, map[string]*string{"min.insync.replicas": &two}, topic)
		if err != nil {
			return err
		}
		if resp.Err != nil && !errors.Is(resp.Err, kerr.TopicAlreadyExists) {
			return fmt.Errorf("%v (%s)", resp.Err, resp.ErrMessage)
		}
		return nil
	})
	eventually(t, 30*time.Second, "leader and full ISR", func() error {
		p, err := partitionState(t, adm, topic)
		if err != nil {
			return err
		}
		if p.Leader < 0 || len(p.ISR) != 3 {
			return fmt.Errorf("leader %d isr %v", p.Leader, p.ISR)
		}
		return nil
	})
	return adm
}

// TestClusterLeaderKill: three processes, RF=3, min.insync.replicas=2; an
// idempotent acks=all producer writes numbered records while the partition
// leader is SIGKILLed and later restarted. Afterwards a consumer reads the
// partition: every acknowledged record is there exactly once, and nothing
// is there twice.
func TestClusterLeaderKill(t *testing.T) {
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	adm := createReplicated(t, bs, topic)

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
		next   int
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
	p, err := partitionState(t, adm, topic)
	if err != nil {
		t.Fatal(err)
	}
	leader := bs[p.Leader-1]
	t.Logf("killing the leader, broker %d, after %d acks", p.Leader, count())
	leader.Kill()
	eventually(t, 60*time.Second, "a new leader", func() error {
		p, err := partitionState(t, adm, topic)
		if err != nil {
			return err
		}
		if p.Leader == leader.NodeID || p.Leader < 0 {
			return fmt.Errorf("leader still %d", p.Leader)
		}
		return nil
	})
	before := count()
	waitAcked(before+500, "records acknowledged by the new leader")
	t.Logf("restarting broker %d after %d acks", leader.NodeID, count())
	leader.Restart()
	eventually(t, 60*time.Second, "the restarted broker back in the ISR", func() error {
		p, err := partitionState(t, adm, topic)
		if err != nil {
			return err
		}
		for _, r := range p.ISR {
			if r == leader.NodeID {
				return nil
			}
		}
		return fmt.Errorf("isr %v", p.ISR)
	})
	waitAcked(count()+300, "records acknowledged after the restart")
	cancel()
	<-done
	flushCtx, fc := context.WithTimeout(context.Background(), 30*time.Second)
	defer fc()
	_ = prod.Flush(flushCtx)

	// Read everything.
	ends, err := adm.ListEndOffsets(testCtx(t, opTimeout), topic)
	if err != nil {
		t.Fatal(err)
	}
	end := ends[topic][0].Offset
	cons := clusterClient(t, bs, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadUncommitted()))
	seen := map[int]int{}
	var read int64
	rctx := testCtx(t, opTimeout)
	for read < end {
		fs := cons.PollFetches(rctx)
		if rctx.Err() != nil {
			t.Fatalf("reading: got %d of %d records", read, end)
		}
		fs.EachError(func(_ string, _ int32, err error) { t.Logf("fetch: %v", err) })
		fs.EachRecord(func(r *kgo.Record) {
			read = r.Offset + 1
			v, err := strconv.Atoi(string(r.Value))
			if err != nil {
				t.Fatalf("offset %d: bad value %q", r.Offset, r.Value)
			}
			seen[v]++
		})
	}
	mu.Lock()
	defer mu.Unlock()
	for v, n := range seen {
		if n > 1 {
			t.Errorf("record %d is in the log %d times", v, n)
		}
	}
	lost := 0
	for v := range acked {
		if seen[v] != 1 {
			lost++
			if lost <= 10 {
				t.Errorf("acknowledged record %d is not in the log", v)
			}
		}
	}
	t.Logf("%d acknowledged, %d failed, %d in the log (end offset %d), %d lost", len(acked), failed, len(seen), end, lost)
	if lost > 0 {
		t.Errorf("%d acknowledged records lost", lost)
	}
}

// TestClusterTwoDown: with two of three brokers down (the followers, so
// the leader still serves and the quorum has lost its majority), an
// acks=all write to a topic with min.insync.replicas=2 is not
// acknowledged: it times out or gets NOT_ENOUGH_REPLICAS. Once the two
// are back, writes are acknowledged again and every acknowledged record
// is in the log.
func TestClusterTwoDown(t *testing.T) {
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	adm := createReplicated(t, bs, topic)
	// Not idempotent: franz-go fails an idempotent producer's record on
	// timeout only when that cannot break its sequence numbers, so its
	// write would wait for the brokers instead of failing.
	prod := clusterClient(t, bs, kgo.DefaultProduceTopic(topic), kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.DisableIdempotentWrite(), kgo.RecordDeliveryTimeout(8*time.Second), kgo.ProduceRequestTimeout(3*time.Second))
	produce := func(v string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		return prod.ProduceSync(ctx, &kgo.Record{Value: []byte(v)}).FirstErr()
	}
	if err := produce("before"); err != nil {
		t.Fatalf("produce with all brokers up: %v", err)
	}
	p, err := partitionState(t, adm, topic)
	if err != nil {
		t.Fatal(err)
	}
	var down []*Broker
	for _, b := range bs {
		if b.NodeID != p.Leader {
			b.Kill()
			down = append(down, b)
		}
	}
	t.Logf("leader %d; killed %d and %d", p.Leader, down[0].NodeID, down[1].NodeID)
	err = produce("unreplicated")
	if err == nil {
		t.Fatalf("acks=all write acknowledged with two of three brokers down")
	}
	if !errors.Is(err, kerr.NotEnoughReplicas) && !errors.Is(err, kerr.RequestTimedOut) &&
		!errors.Is(err, kgo.ErrRecordTimeout) && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("write with two brokers down: %v, want a timeout or NOT_ENOUGH_REPLICAS", err)
	}
	t.Logf("write with two brokers down: %v", err)
	for _, b := range down {
		b.Restart()
	}
	eventually(t, 60*time.Second, "writes acknowledged again", func() error { return produce("after") })

	cons := clusterClient(t, bs, kgo.ConsumeTopics(topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	var vals []string
	ctx := testCtx(t, opTimeout)
	for !containsStr(vals, "after") {
		fs := cons.PollFetches(ctx)
		if ctx.Err() != nil {
			t.Fatalf("reading back: got %q", vals)
		}
		fs.EachRecord(func(r *kgo.Record) { vals = append(vals, string(r.Value)) })
	}
	if vals[0] != "before" {
		t.Errorf("log starts with %q, want the record acknowledged before the kill", vals[0])
	}
	t.Logf("log: %q", vals)
}

func containsStr(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestClusterTopicAdmin: on a three-process cluster a kadm client creates
// a topic, adds partitions, produces to a new partition through its
// leader, and deletes the topic; every broker reports the same cluster id
// in Metadata and DescribeCluster. Adding partitions and deleting topics
// go through the controller; each broker opens and removes its own logs.
func TestClusterTopicAdmin(t *testing.T) {
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
