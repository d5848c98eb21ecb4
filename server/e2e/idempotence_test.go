package e2e

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/gregor-kafka/gregor/core/record"
)

// TestIdempotentProducerSurvivesKill produces numbered records with
// franz-go's idempotent producer (its default) while the broker is
// SIGKILLed and restarted twice. Requests in flight at a kill get no
// answer; the client retries them with the same producer id and sequence
// numbers, and the restarted broker, having rebuilt its producer state
// from snapshots and the log, answers the ones it already has with their
// original offsets. Every record must be in the log exactly once, in
// order (KIP-98).
func TestIdempotentProducerSurvivesKill(t *testing.T) {
	t.Parallel()
	requireBinary(t)
	const partitions, perPartition = 2, 3000
	b := startBroker(t,
		WithConfig("log.segment.bytes", "16384"), // rolls, so snapshots
		WithConfig("auto.create.topics.enable", "false"),
	)
	topic := topicName(t, "")
	mustCreateTopic(t, b.Admin(t), topic, partitions, nil)

	cl := b.Client(t,
		kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.ProducerBatchMaxBytes(4096), // many batches, several in flight
		kgo.ProducerLinger(0),
		kgo.RetryTimeout(60*time.Second),
	)
	var (
		acked    atomic.Int64
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	ctx := testCtx(t, 2*opTimeout)
	go func() {
		pad := bytes.Repeat([]byte("i"), 100)
		for i := range perPartition {
			for p := range int32(partitions) {
				wg.Add(1)
				r := &kgo.Record{Partition: p, Value: fmt.Appendf(nil, "%d-%06d-%s", p, i, pad)}
				cl.Produce(ctx, r, func(_ *kgo.Record, err error) {
					defer wg.Done()
					if err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						return
					}
					acked.Add(1)
				})
			}
		}
	}()
	for _, at := range []int64{1000, 3000} {
		eventually(t, opTimeout, fmt.Sprintf("%d acks", at), func() error {
			if n := acked.Load(); n < at {
				return fmt.Errorf("%d acked", n)
			}
			return nil
		})
		b.KillAndRestart()
	}
	eventually(t, 2*opTimeout, "every record acknowledged", func() error {
		mu.Lock()
		err := firstErr
		mu.Unlock()
		if err != nil {
			t.Fatalf("produce failed: %v", err)
		}
		if n := acked.Load(); n < partitions*perPartition {
			return fmt.Errorf("%d of %d acked", n, partitions*perPartition)
		}
		return nil
	})
	wg.Wait()

	got := consumeToEnd(t, b, topic, partitions)
	for p := range int32(partitions) {
		recs := got[p]
		if len(recs) != perPartition {
			t.Errorf("partition %d holds %d records, want exactly %d", p, len(recs), perPartition)
		}
		for i, r := range recs {
			if want := fmt.Sprintf("%d-%06d-", p, i); !bytes.HasPrefix(r.Value, []byte(want)) {
				t.Fatalf("partition %d offset %d holds %q, want %q...: a record duplicated, lost or reordered", p, r.Offset, trunc(r.Value), want)
			}
		}
	}
}

// TestRawProducerSequences speaks the protocol by hand: InitProducerId,
// then Produce requests with chosen sequence numbers. A replayed batch is
// answered with its original offset and stored once; a batch that skips a
// sequence gets OUT_OF_ORDER_SEQUENCE_NUMBER; an older epoch after a newer
// one gets INVALID_PRODUCER_EPOCH.
func TestRawProducerSequences(t *testing.T) {
	t.Parallel()
	b := startBroker(t, WithConfig("auto.create.topics.enable", "false"))
	topic := topicName(t, "")
	mustCreateTopic(t, b.Admin(t), topic, 1, nil)
	// Pin versions below Produce v13, which names topics by id.
	cl := b.Client(t, kgo.MaxVersions(kversion.V3_6_0()))
	ctx := testCtx(t, opTimeout)

	ipr, err := kmsg.NewPtrInitProducerIDRequest().RequestWith(ctx, cl)
	if err != nil || ipr.ErrorCode != 0 {
		t.Fatalf("InitProducerId: %v %v", err, kerr.ErrorForCode(ipr.ErrorCode))
	}
	pid, epoch := ipr.ProducerID, ipr.ProducerEpoch

	produce := func(epoch int16, seq int32, values ...string) kmsg.ProduceResponseTopicPartition {
		t.Helper()
		h := record.NewBatchHeader(time.Now().UnixMilli())
		h.ProducerID, h.ProducerEpoch, h.BaseSequence = pid, epoch, seq
		bl := record.NewBuilder(h)
		for _, v := range values {
			bl.Add(nil, []byte(v), 0)
		}
		resp, err := produceRequest(topic, -1, 5*time.Second, bl.Build()).RequestWith(ctx, cl)
		if err != nil {
			t.Fatalf("Produce: %v", err)
		}
		return resp.Topics[0].Partitions[0]
	}
	expect := func(what string, p kmsg.ProduceResponseTopicPartition, code int16, base int64) {
		t.Helper()
		if p.ErrorCode != code || code == 0 && p.BaseOffset != base {
			t.Fatalf("%s: %v base %d, want %v base %d", what, kerr.ErrorForCode(p.ErrorCode), p.BaseOffset, kerr.ErrorForCode(code), base)
		}
	}
	expect("seq 0", produce(epoch, 0, "a", "b", "c"), 0, 0)
	expect("seq 3", produce(epoch, 3, "d"), 0, 3)
	expect("replay of seq 0", produce(epoch, 0, "a", "b", "c"), 0, 0)
	expect("replay of seq 3", produce(epoch, 3, "d"), 0, 3)
	expect("skip to seq 5", produce(epoch, 5, "f"), kerr.OutOfOrderSequenceNumber.Code, 0)
	expect("seq 4", produce(epoch, 4, "e"), 0, 4)
	expect("bumped epoch from 0", produce(epoch+1, 0, "g"), 0, 5)
	expect("old epoch", produce(epoch, 5, "f"), kerr.InvalidProducerEpoch.Code, 0)

	recs := consumeN(t, b, topic, 6)
	var vals []string
	for _, r := range recs {
		vals = append(vals, string(r.Value))
	}
	if fmt.Sprint(vals) != "[a b c d e g]" {
		t.Fatalf("log holds %v, want [a b c d e g]: each record once", vals)
	}
	// Nothing beyond: the end offset is 6.
	eo, err := b.Admin(t).ListEndOffsets(context.Background(), topic)
	if err != nil {
		t.Fatal(err)
	}
	if o, _ := eo.Lookup(topic, 0); o.Offset != 6 {
		t.Fatalf("end offset %d, want 6", o.Offset)
	}
}

// produceRequest is a Produce request (below v13, which names topics by
// id) of one batch to partition 0 of topic. franz-go sends it with its
// client's acks, whatever acks says.
func produceRequest(topic string, acks int16, timeout time.Duration, batch []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Acks, req.TimeoutMillis = acks, int32(timeout.Milliseconds())
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Records = batch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}
