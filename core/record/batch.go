package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Field offsets of the v2 RecordBatch header (see Kafka's DefaultRecordBatch).
const (
	offBaseOffset      = 0
	offBatchLength     = 8
	offLeaderEpoch     = 12
	offMagic           = 16
	offCRC             = 17
	offAttributes      = 21
	offLastOffsetDelta = 23
	offBaseTimestamp   = 27
	offMaxTimestamp    = 35
	offProducerID      = 43
	offProducerEpoch   = 51
	offBaseSequence    = 53
	offRecordCount     = 57

	// HeaderSize is the size of the fixed header before the records.
	HeaderSize = 61
	// LogOverhead is the part of the header not counted in BatchLength.
	LogOverhead = 12
)

// Attribute bits.
const (
	CompressionMask  = 0x07
	TimestampTypeBit = 0x08 // 1 = LogAppendTime
	TransactionalBit = 0x10
	ControlBit       = 0x20
	DeleteHorizonBit = 0x40
	NoProducerID     = -1
	NoSequence       = -1
	currentMagic     = 2
)

// Sentinel errors; callers map them to Kafka error codes.
var (
	ErrShort       = errors.New("record: batch shorter than its header")
	ErrLength      = errors.New("record: batch length does not match its bytes")
	ErrMagic       = errors.New("record: unsupported magic (only v2 RecordBatch is accepted)")
	ErrCRC         = errors.New("record: CRC-32C mismatch")
	ErrRecordCount = errors.New("record: record count does not match last offset delta")
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Batch is a v2 RecordBatch held as bytes.
type Batch []byte

func (b Batch) BaseOffset() int64  { return int64(binary.BigEndian.Uint64(b[offBaseOffset:])) }
func (b Batch) BatchLength() int32 { return int32(binary.BigEndian.Uint32(b[offBatchLength:])) }
func (b Batch) PartitionLeaderEpoch() int32 {
	return int32(binary.BigEndian.Uint32(b[offLeaderEpoch:]))
}
func (b Batch) Magic() int8            { return int8(b[offMagic]) }
func (b Batch) CRC() uint32            { return binary.BigEndian.Uint32(b[offCRC:]) }
func (b Batch) Attributes() int16      { return int16(binary.BigEndian.Uint16(b[offAttributes:])) }
func (b Batch) LastOffsetDelta() int32 { return int32(binary.BigEndian.Uint32(b[offLastOffsetDelta:])) }
func (b Batch) BaseTimestamp() int64   { return int64(binary.BigEndian.Uint64(b[offBaseTimestamp:])) }
func (b Batch) MaxTimestamp() int64    { return int64(binary.BigEndian.Uint64(b[offMaxTimestamp:])) }
func (b Batch) ProducerID() int64      { return int64(binary.BigEndian.Uint64(b[offProducerID:])) }
func (b Batch) ProducerEpoch() int16   { return int16(binary.BigEndian.Uint16(b[offProducerEpoch:])) }
func (b Batch) BaseSequence() int32    { return int32(binary.BigEndian.Uint32(b[offBaseSequence:])) }
func (b Batch) RecordCount() int32     { return int32(binary.BigEndian.Uint32(b[offRecordCount:])) }

// LastOffset is the offset of the batch's last record.
func (b Batch) LastOffset() int64 { return b.BaseOffset() + int64(b.LastOffsetDelta()) }

// Size is the whole batch's size in bytes.
func (b Batch) Size() int { return int(b.BatchLength()) + LogOverhead }

func (b Batch) Compression() int8     { return int8(b.Attributes() & CompressionMask) }
func (b Batch) IsTransactional() bool { return b.Attributes()&TransactionalBit != 0 }
func (b Batch) IsControl() bool       { return b.Attributes()&ControlBit != 0 }
func (b Batch) LogAppendTime() bool   { return b.Attributes()&TimestampTypeBit != 0 }

// LastSequence is the sequence of the batch's last record, wrapping at
// MaxInt32 as Kafka's DefaultRecordBatch.incrementSequence does.
func (b Batch) LastSequence() int32 {
	seq := b.BaseSequence()
	if seq == NoSequence {
		return NoSequence
	}
	return int32((int64(seq) + int64(b.LastOffsetDelta())) % (1 << 31))
}

// SetBaseOffset stamps the offset of the batch's first record. The CRC does
// not cover this field.
func (b Batch) SetBaseOffset(o int64) { binary.BigEndian.PutUint64(b[offBaseOffset:], uint64(o)) }

// SetPartitionLeaderEpoch stamps the leader epoch under which the batch was
// appended. The CRC does not cover this field.
func (b Batch) SetPartitionLeaderEpoch(e int32) {
	binary.BigEndian.PutUint32(b[offLeaderEpoch:], uint32(e))
}

// SetLogAppendTime sets the timestamp type to LogAppendTime with the given
// time as max timestamp, and recomputes the CRC (the attributes and
// timestamps are covered by it).
func (b Batch) SetLogAppendTime(ts int64) {
	attrs := uint16(b.Attributes()) | TimestampTypeBit
	binary.BigEndian.PutUint16(b[offAttributes:], attrs)
	binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(ts))
	binary.BigEndian.PutUint32(b[offCRC:], crc32.Checksum(b[offAttributes:], castagnoli))
}

// Peek returns the size of the batch at the start of p, or an error if p
// does not start with a plausible v2 batch header. It does not check the CRC.
func Peek(p []byte) (int, error) {
	if len(p) < HeaderSize {
		return 0, ErrShort
	}
	b := Batch(p)
	if b.Magic() != currentMagic {
		return 0, fmt.Errorf("%w: magic %d", ErrMagic, b.Magic())
	}
	n := int(b.BatchLength()) + LogOverhead
	if n < HeaderSize {
		return 0, fmt.Errorf("%w: length %d", ErrLength, b.BatchLength())
	}
	return n, nil
}

// Validate checks that p holds exactly one well-formed v2 batch: header
// length, magic, a CRC-32C over attributes..end that matches, and a record
// count consistent with the last offset delta.
func Validate(p []byte) error {
	b, err := checkFrame(p)
	if err != nil {
		return err
	}
	if c := b.RecordCount(); c <= 0 || b.LastOffsetDelta() < 0 || (b.Compression() == 0 && c != b.LastOffsetDelta()+1) {
		return fmt.Errorf("%w: count %d, last offset delta %d", ErrRecordCount, c, b.LastOffsetDelta())
	}
	return nil
}

// checkFrame checks that p is exactly one batch with a matching CRC.
func checkFrame(p []byte) (Batch, error) {
	n, err := Peek(p)
	if err != nil {
		return nil, err
	}
	if n != len(p) {
		return nil, fmt.Errorf("%w: header says %d bytes, have %d", ErrLength, n, len(p))
	}
	b := Batch(p)
	if got := crc32.Checksum(p[offAttributes:], castagnoli); got != b.CRC() {
		return nil, fmt.Errorf("%w: stored %08x, computed %08x", ErrCRC, b.CRC(), got)
	}
	return b, nil
}

// Iter walks consecutive batches in p. It stops at the first incomplete or
// malformed batch; Rest then holds the unread tail.
type Iter struct {
	p   []byte
	err error
}

// NewIter returns an iterator over the batches in p.
func NewIter(p []byte) *Iter { return &Iter{p: p} }

// Next returns the next whole batch, or false at the end or on bad input.
func (it *Iter) Next() (Batch, bool) {
	if len(it.p) == 0 {
		return nil, false
	}
	n, err := Peek(it.p)
	if err == nil && n > len(it.p) {
		err = ErrShort
	}
	if err != nil {
		it.err = err
		return nil, false
	}
	b := Batch(it.p[:n:n])
	it.p = it.p[n:]
	return b, true
}

// Err is the reason iteration stopped early, if it did.
func (it *Iter) Err() error { return it.err }

// Rest is what was left unread.
func (it *Iter) Rest() []byte { return it.p }
