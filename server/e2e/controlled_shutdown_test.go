package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClusterControlledShutdown: the leader of a partition (RF=3,
// min.insync.replicas=2) is stopped gracefully (SIGINT) while an acks=all
// producer writes. Before it exits, the controller has moved the
// leadership to another in-sync replica and taken it out of the ISR
// (KIP-631), so the producer's writes all succeed within its retries,
// the broker exits 0 well before its session would have expired, and a
// consumer reads every acknowledged record once, in order.
func TestClusterControlledShutdown(t *testing.T) {
	t.Parallel()
	bs := startCluster(t, 3)
	topic := topicName(t, "")
	cl, p := createReplicated(t, bs, topic)
	leader := p.Leader
	tl := startTail(t, bs, topic)

	prod, err := kgo.NewClient(kgo.SeedBrokers(seeds(bs)...), kgo.DefaultProduceTopic(topic),
		kgo.RecordRetries(100), kgo.RetryTimeout(30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer prod.Close()
	stop := make(chan struct{})
	type result struct {
		acked []string
		err   error
	}
	done := make(chan result)
	go func() {
		var r result
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- r
				return
			default:
			}
			v := fmt.Sprintf("v-%d", i)
			if err := prod.ProduceSync(ctx, kgo.StringRecord(v)).FirstErr(); err != nil {
				r.err = fmt.Errorf("producing %s: %w", v, err)
				done <- r
				return
			}
			r.acked = append(r.acked, v)
		}
	}()
	tl.upTo(t, 20) // writing under way

	start := time.Now()
	code, err := bs[leader-1].Stop()
	took := time.Since(start)
	if err != nil || code != 0 {
		t.Fatalf("stopping the leader b%d: exit %d, %v", leader, code, err)
	}
	out := bs[leader-1].Output()
	if !strings.Contains(out, "controlled shutdown: done") {
		t.Errorf("b%d stopped without a granted controlled shutdown:\n%s", leader, out)
	}
	t.Logf("b%d stopped gracefully in %v", leader, took)
	// Right away, not after a session timeout or replica.lag.time.max.ms:
	// the controller did it before the broker exited.
	q, err := partitionState(cl, topic)
	if err != nil || q.Leader == leader || q.Leader < 0 || slices.Contains(q.ISR, leader) {
		t.Errorf("after the graceful stop of b%d: leader %d, ISR %v (%v); want another leader and b%d out of the ISR", leader, q.Leader, q.ISR, err, leader)
	}
	// The producer goes on writing to the new leader.
	tl.upTo(t, int64(len(tl.waitFor(t, "the consumer reading anything", func([]string) error { return nil }))+20))
	close(stop)
	r := <-done
	if r.err != nil {
		t.Fatalf("the producer failed beyond its retries: %v", r.err)
	}
	vals := tl.upTo(t, int64(len(r.acked)))
	for i, v := range r.acked {
		if vals[i] != v {
			t.Fatalf("offset %d holds %q, acknowledged %q", i, vals[i], v)
		}
	}
	t.Logf("%d records acknowledged, none failed", len(r.acked))
}
