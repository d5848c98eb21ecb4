package e2e

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"
)

// TestRequestPercentageQuota: a franz-go client with request_percentage
// 0.001 (10 µs of handler time a second, KIP-124) sending
// Metadata requests back to back is soon answered with throttle_time_ms,
// honours it, and is muted by the broker: in 3 s it gets only a few
// hundred requests through, where a client without the quota is never
// throttled.
func TestRequestPercentageQuota(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t)
	adm := b.Admin(t)
	busy := "busy-client"
	setQuota(t, adm, clientEntity(&busy), quota("request_percentage", 0.001))

	var th, free throttles
	cl := b.Client(t, kgo.ClientID(busy), kgo.WithHooks(&th))
	other := b.Client(t, kgo.ClientID("free-client"), kgo.WithHooks(&free))
	count := func(c *kgo.Client, d time.Duration) int {
		ctx := testCtx(t, d+opTimeout)
		n := 0
		for end := time.Now().Add(d); time.Now().Before(end); n++ {
			if _, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, c); err != nil {
				t.Fatalf("Metadata: %v", err)
			}
		}
		return n
	}
	n := count(cl, 3*time.Second)
	t.Logf("%d requests in 3 s, throttled at most %v", n, th.max())
	if th.max() == 0 {
		t.Fatalf("%d Metadata requests past request_percentage 0.001, never throttled", n)
	}
	// Past 10 µs of handler time every answer asks for a wait of up to
	// 1 s: far fewer requests than an unthrottled loop makes on loopback.
	if n > 1000 {
		t.Errorf("%d Metadata requests in 3 s with request_percentage 0.001 (throttled at most %v): the rate is not bounded", n, th.max())
	}
	if m := th.max(); m > time.Second {
		t.Errorf("a request-time throttle of %v, more than the one-window bound", m)
	}
	if got := count(other, 500*time.Millisecond); free.max() != 0 || got == 0 {
		t.Errorf("a client without the quota: %d requests, throttled %v", got, free.max())
	}
}

// TestControllerMutationQuota: with controller_mutation_rate 1 (a
// bucket of 11 partitions, KIP-599) kadm's CreateTopics of four topics of
// 5 partitions creates three and gets THROTTLING_QUOTA_EXCEEDED for the
// fourth, with the 4 s the bucket needs in throttle_time_ms; the refused
// topic does not exist. A DeleteTopics v4 (permissive) in debt still
// deletes, and is throttled.
func TestControllerMutationQuota(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	setQuota(t, b.Admin(t), clientEntity(kmsg.StringPtr("mutator")), quota("controller_mutation_rate", 1))
	var th throttles
	cl := b.Client(t, kgo.ClientID("mutator"), kgo.WithHooks(&th))
	adm := kadm.NewClient(cl)
	names := []string{topicName(t, "a"), topicName(t, "b"), topicName(t, "c"), topicName(t, "d")}
	rs, err := adm.CreateTopics(testCtx(t, opTimeout), 5, 1, nil, names...)
	if err != nil {
		t.Fatalf("CreateTopics: %v", err)
	}
	for i, name := range names {
		r := rs[name]
		switch {
		case i < 3 && r.Err != nil:
			t.Errorf("topic %d (%s): %v, want created within the burst", i, name, r.Err)
		case i == 3 && !errors.Is(r.Err, kerr.ThrottlingQuotaExceeded):
			t.Errorf("topic %d (%s): %v, want THROTTLING_QUOTA_EXCEEDED", i, name, r.Err)
		}
	}
	if m := th.max(); m < 3900*time.Millisecond || m > 4100*time.Millisecond {
		t.Errorf("throttled %v, want the 4 s that 4 partitions of debt take at 1/s", m)
	}

	// DeleteTopics v4 knows no THROTTLING_QUOTA_EXCEEDED: permissive. A
	// second connection of the same client, not muted, sends it in debt.
	del := kmsg.NewPtrDeleteTopicsRequest()
	del.Version, del.TimeoutMillis, del.TopicNames = 4, 5000, []string{names[0]}
	again := b.Client(t, kgo.ClientID("mutator"), kgo.MaxVersions(kversion.V2_6_0())) // DeleteTopics v4

	resp, err := del.RequestWith(testCtx(t, opTimeout), again)
	if err != nil || len(resp.Topics) != 1 || resp.Topics[0].ErrorCode != 0 || resp.ThrottleMillis < 4000 {
		t.Fatalf("DeleteTopics v4 in debt: %v %+v, want deleted and throttled 4 s or more", err, resp)
	}
	listed, err := b.Admin(t).ListTopics(testCtx(t, opTimeout), names...)
	if err != nil {
		t.Fatalf("ListTopics: %v", err)
	}
	if listed.Has(names[0]) || !listed.Has(names[1]) || !listed.Has(names[2]) || listed.Has(names[3]) {
		t.Errorf("topics after the refusal and the deletion: %v, want %s and %s", listed.Names(), names[1], names[2])
	}
}

// TestConnectionCreationRate: the default ip entity's
// connection_creation_rate 2 (KIP-612) lets 20 connections through in
// the 10 s span; the ones past it are held unanswered and closed. With
// max.connection.creation.rate, the broker makes connections past the
// rate wait instead: answered, but late.
func TestConnectionCreationRate(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	t.Run("ip", func(t *testing.T) {
		b := startBroker(t)
		adm := b.Admin(t)
		setQuota(t, adm, kadm.ClientQuotaEntity{{Type: "ip"}}, quota("connection_creation_rate", 2))
		d, err := adm.DescribeClientQuotas(testCtx(t, opTimeout), true, []kadm.DescribeClientQuotaComponent{{Type: "ip", MatchType: 1}})
		if got := describedQuotas(d); err != nil || got != `{ip=<default>} connection_creation_rate=2` {
			t.Errorf("DescribeClientQuotas default ip: %v %s", err, got)
		}
		answered, closed := dialMany(t, b.Addr, 30, 3*time.Second)
		t.Logf("%d answered, %d closed", answered, closed)
		// The admin client may have opened one more connection after
		// setting the quota: at most 20 and at least 18 are served.
		if answered > 20 || answered < 18 || closed != 30-answered {
			t.Errorf("30 connections at ip connection_creation_rate 2: %d answered, %d closed; want 18-20 answered, the rest closed", answered, closed)
		}
	})
	t.Run("broker", func(t *testing.T) {
		b := startBroker(t, WithConfig("max.connection.creation.rate", "2"))
		answered, closed := dialMany(t, b.Addr, 30, 3*time.Second)
		t.Logf("%d answered within 3 s, %d closed", answered, closed)
		// The harness's own connections count too: a few fewer than 20.
		if answered > 20 || answered < 15 || closed != 0 {
			t.Errorf("30 connections at max.connection.creation.rate 2: %d answered within 3 s, %d closed; want 15-20 answered, none closed", answered, closed)
		}
	})
}

// dialMany opens n connections at once and sends ApiVersions on each;
// it counts those answered within wait and those the broker closed.
func dialMany(t *testing.T, addr string, n int, wait time.Duration) (answered, closed int) {
	t.Helper()
	conns := make([]*rawConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, addr)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	deadline := time.Now().Add(wait)
	for _, c := range conns {
		wg.Go(func() {
			req := kmsg.NewPtrApiVersionsRequest()
			req.Version = 3
			c.corr++
			c.writeRequest(t, req.Key(), req.Version, c.corr, req.IsFlexible(), req.AppendTo(nil))
			c.conn.SetReadDeadline(deadline)
			var size [4]byte
			_, err := io.ReadFull(c.conn, size[:])
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				answered++
			case !errors.Is(err, os.ErrDeadlineExceeded): // EOF or reset
				closed++
			}
		})
	}
	wg.Wait()
	for _, c := range conns {
		c.conn.Close()
	}
	return answered, closed
}

// TestAlterReplicaLogDirs: kadm moves a replica to the broker's one log
// directory (a success that moves nothing: the partition is still
// described there) and is told LOG_DIR_NOT_FOUND for another directory.
func TestAlterReplicaLogDirs(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	ctx := testCtx(t, opTimeout)
	adm := b.Admin(t)
	topic := topicName(t, "")
	mustCreateTopic(t, adm, topic, 2, nil)
	dir, err := filepath.Abs(b.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	var req kadm.AlterReplicaLogDirsReq
	req.Add(dir, kadm.TopicsSet{topic: {0: {}}})
	req.Add("/no/such/dir", kadm.TopicsSet{topic: {1: {}}})
	rs, err := adm.AlterAllReplicaLogDirs(ctx, req)
	if err != nil {
		t.Fatalf("AlterAllReplicaLogDirs: %v", err)
	}
	got := rs[b.NodeID]
	if r := got[topic][0]; r.Err != nil {
		t.Errorf("%s-0 to %s: %v, want moved (already there)", topic, dir, r.Err)
	}
	if r := got[topic][1]; !errors.Is(r.Err, kerr.LogDirNotFound) {
		t.Errorf("%s-1 to /no/such/dir: %v, want LOG_DIR_NOT_FOUND", topic, r.Err)
	}
	described, err := adm.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		t.Fatalf("DescribeAllLogDirs: %v", err)
	}
	if _, ok := described[b.NodeID][dir].Topics.Lookup(topic, 0); !ok {
		t.Errorf("%s-0 is no longer described in %s", topic, dir)
	}
}
