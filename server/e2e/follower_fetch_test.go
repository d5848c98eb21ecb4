package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClusterFollowerFetch: three brokers in racks r1, r2 and r3 with
// Kafka's RackAwareReplicaSelector (KIP-392). Metadata reports the racks.
// A consumer with client.rack set to a follower's rack is sent to that
// follower by the leader (PreferredReadReplica) and reads every record
// from it, in order; a consumer without a rack reads from the leader.
func TestClusterFollowerFetch(t *testing.T) {
	t.Parallel()
	bs := startClusterEach(t, 3, func(i int) []BrokerOpt {
		return []BrokerOpt{WithConfig("broker.rack", fmt.Sprintf("r%d", i+1))}
	}, WithConfig("replica.selector.class", "org.apache.kafka.common.replica.RackAwareReplicaSelector"))
	topic := topicName(t, "")
	cl, p := createReplicated(t, bs, topic)
	md, err := kadm.NewClient(cl).BrokerMetadata(testCtx(t, opTimeout))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range md.Brokers {
		if b.Rack == nil || *b.Rack != fmt.Sprintf("r%d", b.NodeID) {
			t.Errorf("Metadata: broker %d has rack %v, want r%d", b.NodeID, b.Rack, b.NodeID)
		}
	}
	follower := p.Replicas[0]
	if follower == p.Leader {
		follower = p.Replicas[1]
	}
	var want []string
	for i := range 30 {
		want = append(want, fmt.Sprintf("v-%d", i))
	}
	produceAll(t, bs, topic, want...)

	read := func(rack string) map[int32]int {
		t.Helper()
		var mu sync.Mutex
		from := map[int32]int{} // broker -> batches read from it
		opts := []kgo.Opt{kgo.SeedBrokers(seeds(bs)...),
			kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{topic: {0: kgo.NewOffset().At(0)}}),
			kgo.WithHooks(fetchFrom(func(node int32) { mu.Lock(); from[node]++; mu.Unlock() }))}
		if rack != "" {
			opts = append(opts, kgo.Rack(rack))
		}
		c, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var got []string
		for len(got) < len(want) && ctx.Err() == nil {
			c.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("rack %q read %v, want %v", rack, got, want)
		}
		mu.Lock()
		defer mu.Unlock()
		return from
	}
	if from := read(fmt.Sprintf("r%d", follower)); from[follower] == 0 || from[p.Leader] != 0 {
		t.Errorf("a consumer in rack r%d read batches from %v, want only from the follower b%d", follower, from, follower)
	}
	if from := read(""); from[p.Leader] == 0 || len(from) != 1 {
		t.Errorf("a consumer without a rack read batches from %v, want only from the leader b%d", from, p.Leader)
	}
}

// fetchFrom is a kgo hook calling fn with the broker of every batch read.
type fetchFrom func(node int32)

func (f fetchFrom) OnFetchBatchRead(meta kgo.BrokerMetadata, _ string, _ int32, _ kgo.FetchBatchMetrics) {
	f(meta.NodeID)
}
