package producer

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gregor-kafka/gregor/core/record"
)

// Control record types: the key of a control record is a version (int16,
// 0) and a type (int16), as in Kafka's ControlRecordType.
const (
	ControlAbort  int16 = 0
	ControlCommit int16 = 1
)

// ErrMarker reports a control batch whose marker cannot be read.
var ErrMarker = errors.New("producer: malformed transaction marker")

// MarkerBatch builds the control batch that ends a transaction on a
// partition (Kafka's MemoryRecords.withEndTransactionMarker): attributes
// control + transactional, the producer id and epoch, no sequence, and one
// record whose key is version 0 + type (0 abort, 1 commit) and whose value
// is version 0 + the coordinator epoch. The log stamps the offset.
func MarkerBatch(m Marker, timestamp int64, leaderEpoch int32) record.Batch {
	h := record.NewBatchHeader(timestamp)
	h.PartitionLeaderEpoch = leaderEpoch
	h.ProducerID, h.ProducerEpoch = m.ProducerID, m.ProducerEpoch
	h.Transactional, h.Control = true, true
	kind := ControlAbort
	if m.Commit {
		kind = ControlCommit
	}
	key := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), uint16(kind))
	value := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16(nil, 0), uint32(m.CoordinatorEpoch))
	return record.NewBuilder(h).Add(key, value, 0).Build()
}

// DecodeMarker reads the type and coordinator epoch of a control batch's
// first record. Types other than abort and commit (KRaft's control records)
// come back with coordinator epoch -1.
func DecodeMarker(b record.Batch) (kind int16, coordinatorEpoch int32, err error) {
	recs, err := b.Records()
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %w", ErrMarker, err)
	}
	if len(recs) == 0 || len(recs[0].Key) < 4 {
		return 0, 0, fmt.Errorf("%w: no control record key", ErrMarker)
	}
	kind = int16(binary.BigEndian.Uint16(recs[0].Key[2:]))
	if kind != ControlAbort && kind != ControlCommit {
		return kind, -1, nil
	}
	if v := recs[0].Value; len(v) >= 6 {
		return kind, int32(binary.BigEndian.Uint32(v[2:])), nil
	}
	return 0, 0, fmt.Errorf("%w: marker value of %d bytes", ErrMarker, len(recs[0].Value))
}
