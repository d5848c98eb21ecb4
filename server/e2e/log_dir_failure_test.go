package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClusterLogDirFailure: three brokers, partition 0 led by node 1 with
// RF=3 and min.insync.replicas=2, flush.messages=1. Node 1's 30th fsync of
// the partition's log fails (GREGOR_TEST_FAULTS) while an idempotent
// acks=all producer writes. Node 1 reports its log dir offline to the
// controller (KIP-858), which elects another in-sync replica and takes
// node 1 out of the ISR, and node 1 halts with exit status 1; the producer
// goes on after a short stall, and a consumer reads every acknowledged
// record once, in order. Node 1, restarted, rejoins the ISR.
func TestClusterLogDirFailure(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	topic := topicName(t, "")
	bs := startClusterEach(t, 3, func(i int) []BrokerOpt {
		if i != 0 {
			return nil
		}
		return []BrokerOpt{WithEnv(fmt.Sprintf("GREGOR_TEST_FAULTS=sync %s-0/00000000000000000000.log nth=30", topic))}
	}, WithConfig("flush.messages", "1"), WithConfig("min.insync.replicas", "2"))
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	createAssigned(t, cl, topic, []int32{1, 2, 3})
	waitPartition(t, cl, topic, "node 1 leading with a full ISR", func(p partition) bool {
		return p.Leader == 1 && len(p.ISR) == 3
	})

	prod, err := kgo.NewClient(kgo.SeedBrokers(seeds(bs)...), kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()), kgo.RecordRetries(1000), kgo.RetryTimeout(60*time.Second),
		kgo.MetadataMinAge(100*time.Millisecond), kgo.AlwaysRetryEOF()) // node 1 halts with connections open (clusterClient)
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	ctx := testCtx(t, 2*time.Minute)
	var acked []string
	var longest time.Duration
	exited := false
	for i := 0; i < 200 || !exited; i++ {
		v := fmt.Sprintf("v-%04d", i)
		start := time.Now()
		if err := prod.ProduceSync(ctx, kgo.StringRecord(v)).FirstErr(); err != nil {
			t.Fatalf("producing %s after %d acknowledged: %v", v, len(acked), err)
		}
		longest = max(longest, time.Since(start))
		acked = append(acked, v)
		if !exited && !bs[0].Running() {
			exited = true
		}
		if i > 2000 {
			t.Fatalf("node 1 still running after %d records", i)
		}
	}
	code, err := bs[0].WaitExit(time.Second)
	if err != nil || code != 1 {
		t.Fatalf("node 1: exit %d, %v; want exit status 1", code, err)
	}
	out := bs[0].Output()
	for _, want := range []string{"KAFKA_STORAGE_ERROR", "Shutdown broker because all log dirs have failed", "FATAL:"} {
		if !strings.Contains(out, want) {
			t.Errorf("node 1's log lacks %q", want)
		}
	}
	t.Logf("%d records acknowledged; the longest produce took %v", len(acked), longest)
	// A heartbeat round trip, not broker.session.timeout.ms (9s): the
	// controller was told before node 1 halted.
	if longest > 6*time.Second {
		t.Errorf("producing stalled for %v", longest)
	}
	p, err := partitionState(cl, topic)
	if err != nil || p.Leader == 1 || p.Leader < 0 || slices.Contains(p.ISR, 1) {
		t.Fatalf("after node 1 halted: leader %d, ISR %v (%v)", p.Leader, p.ISR, err)
	}

	cons, err := kgo.NewClient(kgo.SeedBrokers(seeds(bs)[1:]...), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchIsolationLevel(kgo.ReadCommitted()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	var got []string
	for len(got) < len(acked) {
		fs := cons.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			t.Fatalf("read %d of %d acknowledged records", len(got), len(acked))
		}
		fs.EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if !slices.Equal(got, acked) {
		t.Fatalf("read %d records, acknowledged %d; first difference at %d", len(got), len(acked), firstDiff(got, acked))
	}
	// Restarted, node 1 recovers its log and rejoins the ISR.
	bs[0].Restart()
	waitPartition(t, cl, topic, "node 1 back in the ISR", func(p partition) bool { return slices.Contains(p.ISR, 1) })
}

// TestClusterMetadataLogFailure: a node whose metadata log cannot be
// written halts with exit status 1 and says why, as Kafka's fatal fault
// handler does, instead of running on outside the quorum; the other two
// go on.
func TestClusterMetadataLogFailure(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	bs := startClusterEach(t, 3, func(i int) []BrokerOpt {
		if i != 2 {
			return nil
		}
		return []BrokerOpt{WithEnv("GREGOR_TEST_FAULTS=sync __cluster_metadata-0/ nth=25")}
	})
	cl := clusterClient(t, bs, kgo.RetryTimeout(20*time.Second))
	// Each topic is a few metadata records, each batch synced on every node.
	for i := 0; bs[2].Running(); i++ {
		if i == 60 {
			t.Fatalf("node 3 still running after %d topics", i)
		}
		createFullyReplicated(t, kadm.NewClient(cl), 1, topicName(t, fmt.Sprint(i)))
	}
	code, err := bs[2].WaitExit(5 * time.Second)
	if err != nil || code != 1 {
		t.Fatalf("node 3: exit %d, %v; want exit status 1", code, err)
	}
	if out := bs[2].Output(); !strings.Contains(out, "FATAL: metadata quorum: quorum: node halted after a failure") {
		t.Errorf("node 3's log does not say why it halted:\n%s", out)
	}
	// The two left still form a quorum: a topic on them is created.
	eventually(t, 30*time.Second, "a topic created on the two nodes left", func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 2, nil, topicName(t, "after"))
		if err == nil {
			err = resp.Err
		}
		return err
	})
}
