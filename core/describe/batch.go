package describe

import "github.com/gregor-kafka/gregor/core/record"

// BatchHeader is what a produce's first batch says of its writer and
// size, as the pages show a Produce request (KIP-98's producer fields).
type BatchHeader struct {
	ProducerID    int64 // -1: not idempotent
	ProducerEpoch int16
	BaseSequence  int32
	Transactional bool
	Records       int32
	Bytes         int
}

// FirstBatch reads the first batch header of a record set; false when p
// does not start with one.
func FirstBatch(p []byte) (BatchHeader, bool) {
	if _, err := record.Peek(p); err != nil {
		return BatchHeader{}, false
	}
	b := record.Batch(p)
	return BatchHeader{b.ProducerID(), b.ProducerEpoch(), b.BaseSequence(), b.IsTransactional(), b.RecordCount(), b.Size()}, true
}

// Span is what a fetch answer's record set holds: its batches, their
// records, and the offsets from the first batch's base to the last's
// last (First and Last are -1 when it holds none).
type Span struct {
	Batches, Records int
	First, Last      int64
}

// SpanOf reads the batches of a record set.
func SpanOf(p []byte) Span {
	s := Span{First: -1, Last: -1}
	it := record.NewIter(p)
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		if s.First < 0 {
			s.First = b.BaseOffset()
		}
		s.Last = b.LastOffset()
		s.Batches++
		s.Records += int(b.RecordCount())
	}
	return s
}
