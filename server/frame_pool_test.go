package server

import (
	"bytes"
	"runtime"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// TestPooledProduceFrames: produce frames go back to the pool once
// answered and are read into again, while what the live trace keeps of
// each request stays that request's: with a watcher, three large produces
// of different bytes on one connection, each answered before the next
// is sent; then every event's batch is still the batch it was sent with.
// Unwatched, more of them allocate no frame buffers.
func TestPooledProduceFrames(t *testing.T) {
	srv := startInProcess(t, t.TempDir(), nil)
	createTopic(t, srv.KafkaAddr().String(), "t")
	w := srv.e.trace.Watch(64)
	c := dialRawClient(t, srv.KafkaAddr().String())
	var sent [][]byte
	for i := range 3 {
		value := bytes.Repeat([]byte{'a' + byte(i)}, 200<<10) // a frame in the 256 KiB class
		batch := record.AppendBatch(nil, record.NewBatchHeader(time.Now().UnixMilli()), []record.Record{{Value: value}})
		sent = append(sent, batch)
		c.send(int32(i), produceOf("t", 1, batch))
		resp := kmsg.NewPtrProduceResponse()
		resp.Version = 7
		if _, err := c.recv(resp); err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
			t.Fatalf("produce %d: %v %+v", i, err, resp.Topics)
		}
	}
	var kept [][]byte
	timeout := time.After(10 * time.Second)
	for len(kept) < len(sent) {
		select {
		case ev := <-w.Events():
			if p, ok := ev.Msg.(*kmsg.ProduceRequest); ok {
				kept = append(kept, p.Topics[0].Partitions[0].Records)
			}
		case <-timeout:
			t.Fatalf("%d produce events traced, want %d", len(kept), len(sent))
		}
	}
	for i := range sent {
		if got, want := kept[i], sent[i]; !bytes.Equal(got, want) {
			at := 0
			for at < min(len(got), len(want)) && got[at] == want[at] {
				at++
			}
			t.Errorf("the trace's produce %d holds other bytes than were sent, from byte %d of %d", i, at, len(want))
		}
	}
	srv.e.trace.Unwatch(w)

	// Unwatched, 20 more of them take about no memory: each frame reads
	// into the buffer the one before it gave back.
	frame := c.f.AppendRequest(nil, produceOf("t", 1, sent[0]), 9)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 20
	for range n {
		if _, err := c.nc.Write(frame); err != nil {
			t.Fatal(err)
		}
		resp := kmsg.NewPtrProduceResponse()
		resp.Version = 7
		if _, err := c.recv(resp); err != nil || resp.Topics[0].Partitions[0].ErrorCode != 0 {
			t.Fatalf("produce: %v %+v", err, resp.Topics)
		}
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d produces of %d bytes: %d bytes allocated", n, len(frame), alloc)
	if alloc > uint64(n*classSize(len(frame))/2) {
		t.Errorf("%d produces of %d bytes allocated %d bytes: their frames were not reused", n, len(frame), alloc)
	}
}

// produceOf is a Produce v7 of one batch to topic's partition 0.
func produceOf(topic string, acks int16, batch []byte) *kmsg.ProduceRequest {
	p := kmsg.NewPtrProduceRequest()
	p.Version, p.Acks, p.TimeoutMillis = 7, acks, 5000
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = topic
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = batch
	pt.Partitions = append(pt.Partitions, pp)
	p.Topics = append(p.Topics, pt)
	return p
}
