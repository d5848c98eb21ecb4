package bench

import (
	"encoding/binary"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/wire"
)

// Micro-benchmarks of the per-byte steps on the broker's hot path, with the
// shapes BenchmarkBrokers produces: 1 KiB records in ~1 MB batches (kgo's
// default producer.batch.max.bytes), 6 partitions.

const batchRecords = 1000 // ~1 MB of 1 KiB values

func benchBatch(tb testing.TB) []byte {
	bl := record.NewBuilder(record.NewBatchHeader(1_700_000_000_000))
	for i := range batchRecords {
		bl.Add(nil, value(i), int64(i))
	}
	batch := bl.Build()
	if err := record.Validate(batch); err != nil {
		tb.Fatal(err)
	}
	return batch
}

// BenchmarkValidateBatch is the CRC-32C check every produced batch gets.
func BenchmarkValidateBatch(b *testing.B) {
	batch := benchBatch(b)
	b.SetBytes(int64(len(batch)))
	for b.Loop() {
		if err := record.Validate(batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseProduceRequest decodes a Produce request frame carrying one
// ~1 MB batch for each of 6 partitions. kmsg aliases the batch bytes, so
// the cost should not grow with the batch size.
func BenchmarkParseProduceRequest(b *testing.B) {
	batch := benchBatch(b)
	req := kmsg.NewPtrProduceRequest()
	req.Version = 9 // flexible, by topic name
	req.Acks = -1
	req.TimeoutMillis = 30000
	t := kmsg.NewProduceRequestTopic()
	t.Topic = "bench"
	for p := range int32(partitions) {
		rp := kmsg.NewProduceRequestTopicPartition()
		rp.Partition = p
		rp.Records = batch
		t.Partitions = append(t.Partitions, rp)
	}
	req.Topics = append(req.Topics, t)
	frame := appendRequestFrame(nil, 7, "bench", req)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if _, _, err := wire.ParseRequest(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// appendRequestFrame encodes a request as the header and body of a frame
// (without the size prefix, as wire.ParseRequest takes it).
func appendRequestFrame(dst []byte, corr int32, clientID string, req kmsg.Request) []byte {
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.Key()))
	dst = binary.BigEndian.AppendUint16(dst, uint16(req.GetVersion()))
	dst = binary.BigEndian.AppendUint32(dst, uint32(corr))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(clientID)))
	dst = append(dst, clientID...)
	if req.IsFlexible() {
		dst = append(dst, 0) // no tagged fields
	}
	return req.AppendTo(dst)
}

func fetchResponse(batch []byte) *kmsg.FetchResponse {
	resp := kmsg.NewPtrFetchResponse()
	resp.Version = 12
	t := kmsg.NewFetchResponseTopic()
	t.Topic = "bench"
	for p := range int32(partitions) {
		sp := kmsg.NewFetchResponseTopicPartition()
		sp.Partition = p
		sp.HighWatermark = 1 << 20
		sp.LastStableOffset = 1 << 20
		sp.RecordBatches = batch
		t.Partitions = append(t.Partitions, sp)
	}
	resp.Topics = append(resp.Topics, t)
	return resp
}

// BenchmarkAppendFetchResponse encodes a ~6 MB Fetch response frame. The
// sub-benchmarks show what the output buffer costs: appending to a nil
// buffer grows it by doubling (each step a fresh allocation, a clear and a
// copy), while a reused buffer pays for one copy of the record bytes.
func BenchmarkAppendFetchResponse(b *testing.B) {
	resp := fetchResponse(benchBatch(b))
	size := len(wire.AppendResponse(nil, 1, resp))
	b.Run("nil-buffer", func(b *testing.B) {
		b.SetBytes(int64(size))
		for b.Loop() {
			_ = wire.AppendResponse(nil, 1, resp)
		}
	})
	b.Run("reused-buffer", func(b *testing.B) {
		b.SetBytes(int64(size))
		buf := make([]byte, 0, size)
		for b.Loop() {
			buf = wire.AppendResponse(buf[:0], 1, resp)
		}
	})
}
