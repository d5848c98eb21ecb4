package server

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/gregor-kafka/gregor/core/config"
)

// startInProcess runs a server on ephemeral ports in dir.
func startInProcess(t *testing.T, dir string, settings map[string]string) *Server {
	t.Helper()
	b := config.NewBroker()
	for k, v := range settings {
		if err := b.SetStatic(k, v); err != nil {
			t.Fatal(err)
		}
	}
	return run(t, Config{KafkaAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataDir: dir, Settings: b, Logf: t.Logf})
}

// run starts a server with cfg and stops it when the test ends.
func run(t *testing.T, cfg Config) *Server {
	t.Helper()
	srv, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return srv
}

// TestRoundTrip produces and consumes through the real server in-process.
func TestRoundTrip(t *testing.T) {
	srv := startInProcess(t, t.TempDir(), map[string]string{"log.segment.bytes": "4096"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(srv.KafkaAddr().String()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, "rt"); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		r := &kgo.Record{Topic: "rt", Key: []byte(fmt.Sprint(i % 7)), Value: []byte(fmt.Sprintf("value-%04d", i))}
		if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
			t.Fatalf("produce %d: %v", i, err)
		}
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(srv.KafkaAddr().String()), kgo.ConsumeTopics("rt"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	seen := map[string]bool{}
	for len(seen) < n {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("after %d records: %v", len(seen), err)
		}
		fs.EachRecord(func(r *kgo.Record) { seen[string(r.Value)] = true })
	}
	offs, err := adm.ListEndOffsets(ctx, "rt")
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	offs.Each(func(o kadm.ListedOffset) { total += o.Offset })
	if total != n {
		t.Fatalf("end offsets sum to %d, want %d", total, n)
	}
}
