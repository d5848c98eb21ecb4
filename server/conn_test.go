package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// rawClient speaks Kafka's framing by hand, to send what real clients
// would not: reused correlation ids, pipelines of acks=0 produces.
type rawClient struct {
	t  *testing.T
	nc net.Conn
	f  *kmsg.RequestFormatter
}

func dialRawClient(t *testing.T, addr string) *rawClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &rawClient{t: t, nc: nc, f: kmsg.NewRequestFormatter(kmsg.FormatterClientID("raw"))}
}

func (c *rawClient) send(corr int32, req kmsg.Request) {
	c.t.Helper()
	if _, err := c.nc.Write(c.f.AppendRequest(nil, req, corr)); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads one response into resp (whose version must be set) and
// returns its correlation id; err is the read's error, if any.
func (c *rawClient) recv(resp kmsg.Response) (int32, error) {
	c.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var size [4]byte
	if _, err := io.ReadFull(c.nc, size[:]); err != nil {
		return 0, err
	}
	body := make([]byte, binary.BigEndian.Uint32(size[:]))
	if _, err := io.ReadFull(c.nc, body); err != nil {
		return 0, err
	}
	return int32(binary.BigEndian.Uint32(body)), resp.ReadFrom(body[4:])
}

func createTopic(t *testing.T, addr, topic string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, 1, nil, topic); err != nil {
		t.Fatal(err)
	}
}

// TestResponsesFollowRequestOrder: a long-polling Fetch and an
// ApiVersions sent after it with the same correlation id are answered in
// the order they were sent, though the broker answers the second first.
func TestResponsesFollowRequestOrder(t *testing.T) {
	srv := startInProcess(t, t.TempDir(), nil)
	createTopic(t, srv.KafkaAddr().String(), "t")
	c := dialRawClient(t, srv.KafkaAddr().String())

	fetch := kmsg.NewPtrFetchRequest()
	fetch.Version, fetch.ReplicaID, fetch.MaxWaitMillis, fetch.MinBytes, fetch.MaxBytes = 11, -1, 300, 1, 1<<20
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic = "t"
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.PartitionMaxBytes, fp.CurrentLeaderEpoch = 1<<20, -1
	ft.Partitions = append(ft.Partitions, fp)
	fetch.Topics = append(fetch.Topics, ft)
	versions := kmsg.NewPtrApiVersionsRequest() // v0
	c.send(7, fetch)
	c.send(7, versions)

	first := kmsg.NewPtrFetchResponse()
	first.Version = 11
	if corr, err := c.recv(first); err != nil || corr != 7 || len(first.Topics) != 1 || first.Topics[0].Topic != "t" {
		t.Fatalf("first answer: corr %d, err %v, topics %+v: not the Fetch's", corr, err, first.Topics)
	}
	second := kmsg.NewPtrApiVersionsResponse()
	if corr, err := c.recv(second); err != nil || corr != 7 || len(second.ApiKeys) == 0 {
		t.Fatalf("second answer: corr %d, err %v, %d api keys: not the ApiVersions'", corr, err, len(second.ApiKeys))
	}
}

// TestAcksZeroPipeline: acks=0 produces hold bytes in flight until the
// engine handled them, and give them back: many more than the
// connection's request bound, then a request that is answered.
func TestAcksZeroPipeline(t *testing.T) {
	srv := startInProcess(t, t.TempDir(), nil)
	createTopic(t, srv.KafkaAddr().String(), "t")
	c := dialRawClient(t, srv.KafkaAddr().String())
	var cl bytes.Buffer
	for range 4 * maxInFlight {
		cl.Write(c.f.AppendRequest(nil, produceOf("t", 0, batchOf("v")), 1))
	}
	cl.Write(c.f.AppendRequest(nil, kmsg.NewPtrApiVersionsRequest(), 2))
	if _, err := c.nc.Write(cl.Bytes()); err != nil {
		t.Fatal(err)
	}
	if corr, err := c.recv(kmsg.NewPtrApiVersionsResponse()); err != nil || corr != 2 {
		t.Fatalf("after %d acks=0 produces: corr %d, err %v", 4*maxInFlight, corr, err)
	}
	offs, err := kadm.NewClient(mustClient(t, srv.KafkaAddr().String())).ListEndOffsets(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := offs.Lookup("t", 0); o.Offset != 4*maxInFlight {
		t.Fatalf("end offset %d, want %d", o.Offset, 4*maxInFlight)
	}
}

func mustClient(t *testing.T, addr string) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// batchOf is a v2 record batch of one record, as a producer encodes it.
func batchOf(value string) []byte {
	return record.AppendBatch(nil, record.NewBatchHeader(time.Now().UnixMilli()), []record.Record{{Value: []byte(value)}})
}

// TestMaxConnections: a connection over max.connections is closed at
// once, the others are served, and a freed place is taken again.
func TestMaxConnections(t *testing.T) {
	for _, setting := range []string{"max.connections", "max.connections.per.ip"} {
		t.Run(setting, func(t *testing.T) {
			srv := startInProcess(t, t.TempDir(), map[string]string{setting: "2"})
			addr := srv.KafkaAddr().String()
			a, b := dialRawClient(t, addr), dialRawClient(t, addr)
			for _, c := range []*rawClient{a, b} {
				c.send(1, kmsg.NewPtrApiVersionsRequest())
				if _, err := c.recv(kmsg.NewPtrApiVersionsResponse()); err != nil {
					t.Fatalf("a connection within %s=2: %v", setting, err)
				}
			}
			extra := dialRawClient(t, addr)
			extra.send(1, kmsg.NewPtrApiVersionsRequest())
			if _, err := extra.recv(kmsg.NewPtrApiVersionsResponse()); err == nil || strings.Contains(err.Error(), "timeout") {
				t.Fatalf("the third connection: %v, want it closed", err)
			}
			a.nc.Close()
			deadline := time.Now().Add(5 * time.Second)
			for {
				c := dialRawClient(t, addr)
				c.send(1, kmsg.NewPtrApiVersionsRequest())
				if _, err := c.recv(kmsg.NewPtrApiVersionsResponse()); err == nil {
					break
				} else if time.Now().After(deadline) {
					t.Fatalf("no place freed by a closed connection: %v", err)
				}
				runtime.Gosched()
			}
		})
	}
}
