package record

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Log compaction rewrites batches (Kafka's MemoryRecords.filterTo): a v2
// batch keeps its base offset and its last offset delta, so the offsets of
// the records it keeps do not change and its producer's sequence range is
// intact, while some or all of its records are gone. Such a batch has
// fewer records than its offset span (an empty one has none, KIP-98's
// BatchRetention.RETAIN_EMPTY), which Validate refuses from a producer and
// ValidateStored accepts from a log.
//
// KIP-534 stores the time after which the cleaner may drop the batch's
// tombstones (or the batch itself, for a transaction marker) in the base
// timestamp, with DeleteHorizonBit set; record timestamps stay base +
// delta, with deltas recomputed from the new base.

// DeleteHorizon is the batch's delete horizon in Unix milliseconds and
// true, or false when the cleaner has not set one (KIP-534).
func (b Batch) DeleteHorizon() (int64, bool) {
	if b.Attributes()&DeleteHorizonBit == 0 {
		return 0, false
	}
	return b.BaseTimestamp(), true
}

// ValidateStored checks a batch read back from a log: length, magic,
// CRC-32C, and a record count that fits the offset span (a compacted batch
// may hold fewer records than offsets, or none).
func ValidateStored(p []byte) error {
	b, err := checkFrame(p)
	if err != nil {
		return err
	}
	if c := b.RecordCount(); c < 0 || b.LastOffsetDelta() < 0 || int64(c) > int64(b.LastOffsetDelta())+1 {
		return fmt.Errorf("%w: count %d, last offset delta %d", ErrRecordCount, c, b.LastOffsetDelta())
	}
	return nil
}

// Rebuild encodes the records kept from orig (each with orig's
// TimestampDelta and OffsetDelta) as a new uncompressed batch with orig's
// base offset, last offset delta, producer fields, leader epoch and
// transactional, control and timestamp-type bits. With horizon >= 0 the
// batch carries that delete horizon (DeleteHorizonBit, base timestamp =
// horizon); otherwise it keeps orig's horizon if it had one. A
// LogAppendTime batch keeps orig's max timestamp.
func Rebuild(dst []byte, orig Batch, recs []Record, horizon int64) []byte {
	base := orig.BaseTimestamp()
	newBase := base
	if h, ok := orig.DeleteHorizon(); ok && horizon < 0 {
		horizon = h
	}
	if horizon >= 0 {
		newBase = horizon
	}
	out := make([]Record, len(recs))
	for i, r := range recs {
		r.TimestampDelta = base + r.TimestampDelta - newBase
		out[i] = r
	}
	h := BatchHeader{
		BaseOffset: orig.BaseOffset(), PartitionLeaderEpoch: orig.PartitionLeaderEpoch(),
		BaseTimestamp: newBase, ProducerID: orig.ProducerID(), ProducerEpoch: orig.ProducerEpoch(),
		BaseSequence: orig.BaseSequence(), Transactional: orig.IsTransactional(),
		Control: orig.IsControl(), LogAppendTime: orig.LogAppendTime(),
	}
	start := len(dst)
	dst = AppendBatch(dst, h, out)
	b := Batch(dst[start:])
	binary.BigEndian.PutUint32(b[offLastOffsetDelta:], uint32(orig.LastOffsetDelta()))
	if orig.LogAppendTime() {
		binary.BigEndian.PutUint64(b[offMaxTimestamp:], uint64(orig.MaxTimestamp()))
	}
	if horizon >= 0 {
		binary.BigEndian.PutUint16(b[offAttributes:], uint16(b.Attributes())|DeleteHorizonBit)
	}
	binary.BigEndian.PutUint32(b[offCRC:], crc32.Checksum(b[offAttributes:], castagnoli))
	return dst
}
