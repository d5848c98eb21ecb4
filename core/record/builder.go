package record

import (
	"encoding/binary"
	"hash/crc32"
)

// BatchHeader holds the batch-level fields a Builder writes. Use
// NewBatchHeader for a non-idempotent batch and change what you need.
type BatchHeader struct {
	BaseOffset           int64
	PartitionLeaderEpoch int32
	BaseTimestamp        int64 // records carry TimestampDelta from it
	ProducerID           int64 // NoProducerID (-1) when not idempotent
	ProducerEpoch        int16 // -1 when not idempotent
	BaseSequence         int32 // NoSequence (-1) when not idempotent
	Transactional        bool  // KIP-98
	Control              bool  // commit/abort markers
	LogAppendTime        bool  // timestamp type bit; MaxTimestamp = BaseTimestamp
}

// NewBatchHeader returns the header of a plain (non-idempotent,
// non-transactional) batch whose first record has timestamp baseTimestamp.
func NewBatchHeader(baseTimestamp int64) BatchHeader {
	return BatchHeader{
		BaseTimestamp: baseTimestamp,
		ProducerID:    NoProducerID,
		ProducerEpoch: -1,
		BaseSequence:  NoSequence,
	}
}

// Builder accumulates records and encodes them as one uncompressed v2
// batch, as a producer's RecordAccumulator does. It is used by tests and the
// simulated clients.
type Builder struct {
	h    BatchHeader
	recs []Record
}

// NewBuilder starts a batch with the given header.
func NewBuilder(h BatchHeader) *Builder { return &Builder{h: h} }

// Add appends a record whose offset delta is its position in the batch.
func (bl *Builder) Add(key, value []byte, timestampDelta int64, headers ...Header) *Builder {
	bl.recs = append(bl.recs, Record{
		OffsetDelta: int32(len(bl.recs)), TimestampDelta: timestampDelta,
		Key: key, Value: value, Headers: headers,
	})
	return bl
}

// AddRecord appends a record as given (its OffsetDelta is kept).
func (bl *Builder) AddRecord(r Record) *Builder {
	bl.recs = append(bl.recs, r)
	return bl
}

// Len is the number of records added so far.
func (bl *Builder) Len() int { return len(bl.recs) }

// Build encodes the batch into a new slice.
func (bl *Builder) Build() Batch { return AppendBatch(nil, bl.h, bl.recs) }

// AppendBatch appends the batch to dst and returns the extended slice.
func (bl *Builder) AppendBatch(dst []byte) []byte { return AppendBatch(dst, bl.h, bl.recs) }

// AppendBatch encodes h and recs as one uncompressed v2 RecordBatch appended
// to dst, computing the length, last offset delta (the last record's
// OffsetDelta), max timestamp and CRC-32C. With no records the batch has a
// record count of 0 and last offset delta -1, which Validate rejects, as
// Kafka only produces such batches through compaction.
func AppendBatch(dst []byte, h BatchHeader, recs []Record) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, HeaderSize)...)
	b := dst[start:]
	var attrs uint16
	if h.LogAppendTime {
		attrs |= TimestampTypeBit
	}
	if h.Transactional {
		attrs |= TransactionalBit
	}
	if h.Control {
		attrs |= ControlBit
	}
	lastDelta := int32(-1)
	maxTs := h.BaseTimestamp
	if len(recs) == 0 {
		maxTs = -1
	}
	for i, r := range recs {
		if i == 0 || h.BaseTimestamp+r.TimestampDelta > maxTs {
			maxTs = h.BaseTimestamp + r.TimestampDelta
		}
		lastDelta = r.OffsetDelta
	}
	if h.LogAppendTime {
		maxTs = h.BaseTimestamp
	}
	binary.BigEndian.PutUint64(b[offBaseOffset:], uint64(h.BaseOffset))
	binary.BigEndian.PutUint32(b[offLeaderEpoch:], uint32(h.PartitionLeaderEpoch))
	b[offMagic] = currentMagic
	binary.BigEndian.PutUint16(b[offAttributes:], attrs)
	binary.BigEndian.PutUint32(b[offLastOffsetDelta:], uint32(lastDelta))
	binary.BigEndian.PutUint64(b[offBaseTimestamp:], uint64(h.BaseTimestamp))
	binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(maxTs))
	binary.BigEndian.PutUint64(b[offProducerID:], uint64(h.ProducerID))
	binary.BigEndian.PutUint16(b[offProducerEpoch:], uint16(h.ProducerEpoch))
	binary.BigEndian.PutUint32(b[offBaseSequence:], uint32(h.BaseSequence))
	binary.BigEndian.PutUint32(b[offRecordCount:], uint32(len(recs)))
	for _, r := range recs {
		dst = appendRecord(dst, r)
	}
	b = dst[start:]
	binary.BigEndian.PutUint32(b[offBatchLength:], uint32(len(b)-LogOverhead))
	binary.BigEndian.PutUint32(b[offCRC:], crc32.Checksum(b[offAttributes:], castagnoli))
	return dst
}

func appendBytes(dst, p []byte) []byte {
	if p == nil {
		return binary.AppendVarint(dst, -1)
	}
	return append(binary.AppendVarint(dst, int64(len(p))), p...)
}

func appendRecord(dst []byte, r Record) []byte {
	var body [64]byte
	p := append(body[:0], byte(r.Attributes))
	p = binary.AppendVarint(p, r.TimestampDelta)
	p = binary.AppendVarint(p, int64(r.OffsetDelta))
	p = appendBytes(p, r.Key)
	p = appendBytes(p, r.Value)
	p = binary.AppendVarint(p, int64(len(r.Headers)))
	for _, h := range r.Headers {
		p = binary.AppendVarint(p, int64(len(h.Key)))
		p = append(p, h.Key...)
		p = appendBytes(p, h.Value)
	}
	dst = binary.AppendVarint(dst, int64(len(p)))
	return append(dst, p...)
}
