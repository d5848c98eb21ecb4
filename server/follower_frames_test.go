package server

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/record"
)

// TestPooledFollowerFetches: in a cluster of three in-process nodes, a
// follower reads the leader's Fetch answers into pooled buffers and
// appends their batches from there, giving each buffer back once the
// broker received it (frame_pool.go). Large acks=all produces of
// different bytes to a partition on all three nodes leave every
// replica's segment byte for byte the leader's, so no buffer was reused
// while its batches were still wanted; and the process allocates well
// under the bytes the followers received, where a fresh buffer per
// answer, and a copy per batch, cost twice that each.
func TestPooledFollowerFetches(t *testing.T) {
	nodes := startNodes(t, 3)
	cl, err := kgo.NewClient(kgo.SeedBrokers(nodes[0].KafkaAddr().String()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	adm := kadm.NewClient(cl)
	if _, err := adm.CreateTopic(ctx, 1, 3, nil, "r"); err != nil {
		t.Fatal(err)
	}
	leader := -1
	for leader < 0 || leader > 2 {
		if ctx.Err() != nil {
			t.Fatal("the partition has no leader")
		}
		m := kmsg.NewPtrMetadataRequest()
		rt := kmsg.NewMetadataRequestTopic()
		rt.Topic = kmsg.StringPtr("r")
		m.Topics = append(m.Topics, rt)
		if resp, err := m.RequestWith(ctx, cl); err == nil && len(resp.Topics) == 1 && len(resp.Topics[0].Partitions) == 1 {
			if p := resp.Topics[0].Partitions[0]; p.ErrorCode == 0 && len(p.ISR) == 3 {
				leader = int(p.Leader) - 1
			}
		}
		time.Sleep(50 * time.Millisecond)
	}

	c := dialRawClient(t, nodes[leader].KafkaAddr().String())
	const n = 20
	var frames [][]byte // built before counting what the brokers allocate
	for i := range n + 1 {
		value := bytes.Repeat([]byte{'a' + byte(i)}, 200<<10)
		batch := record.AppendBatch(nil, record.NewBatchHeader(time.Now().UnixMilli()), []record.Record{{Value: value}})
		frames = append(frames, c.f.AppendRequest(nil, produceOf("r", -1, batch), int32(i)))
	}
	resp := kmsg.NewPtrProduceResponse()
	produce := func(i int) {
		if _, err := c.nc.Write(frames[i]); err != nil {
			t.Fatal(err)
		}
		resp.Default()
		resp.Version = 7
		if _, err := c.recv(resp); err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
			t.Fatalf("produce %d: %v %+v", i, err, resp.Topics)
		}
	}
	produce(0) // the pools warm up
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sent := 0
	for i := 1; i <= n; i++ {
		produce(i)
		sent += len(frames[i])
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	received := 2 * sent // by the two followers
	t.Logf("%d acks=all produces, %d bytes to the followers: %d bytes allocated", n, received, alloc)
	if alloc > uint64(received)/4 {
		t.Errorf("%d bytes to the followers allocated %d bytes: their fetch answers were not read into reused buffers", received, alloc)
	}

	want := segmentBytes(t, nodes[leader])
	for i, s := range nodes {
		if got := segmentBytes(t, s); !bytes.Equal(got, want) {
			t.Errorf("node %d's segment (%d bytes) differs from the leader's (%d bytes)", i+1, len(got), len(want))
		}
	}
}

// segmentBytes is the first segment of partition r-0 on s.
func segmentBytes(t *testing.T, s *Server) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.cfg.DataDir, "r-0", "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// startNodes starts n in-process nodes of one quorum, each its own
// data directory, and stops them when the test ends.
func startNodes(t *testing.T, n int) []*Server {
	t.Helper()
	quorum := map[int32]string{}
	for id := int32(1); id <= int32(n); id++ {
		quorum[id] = freeAddr(t)
	}
	var nodes []*Server
	for id := int32(1); id <= int32(n); id++ {
		b := config.NewBroker()
		if err := b.SetStatic("node.id", strconv.Itoa(int(id))); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, run(t, Config{KafkaAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", DataDir: t.TempDir(),
			Settings: b, ControllerQuorum: quorum, Logf: t.Logf}))
	}
	return nodes
}

// freeAddr is a loopback address nothing listens on just now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
