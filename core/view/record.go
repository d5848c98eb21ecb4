package view

import (
	"github.com/gregor-kafka/gregor/core/record"
)

// Record is one record as the console's record browser shows it: a nil
// Key or Value is Kafka's null (length -1), not an empty one.
type Record struct {
	Offset, Timestamp int64
	Key, Value        []byte
	Headers           []record.Header
	// Transactional marks a record of a transaction (committed, aborted
	// or still open: a read_uncommitted fetch returns all three).
	Transactional bool
}

// RecordsOf decodes the records of batches (a Fetch answer's record
// set) from offset from on, at most n of them, in offset order, leaving
// out the control batches (transaction markers); next is the offset to
// read from for the records that follow. A batch cut short at the end
// of the set (the fetch's byte limit) ends the records.
func RecordsOf(batches []byte, from int64, n int) (recs []Record, next int64, err error) {
	next = from
	it := record.NewIter(batches)
	for len(recs) < n {
		b, ok := it.Next()
		if !ok {
			break
		}
		if b.LastOffset() < from {
			continue
		}
		if b.IsControl() {
			next = b.LastOffset() + 1
			continue
		}
		rs, err := b.Records()
		if err != nil {
			return recs, next, err
		}
		for _, r := range rs {
			off := b.BaseOffset() + int64(r.OffsetDelta)
			if off < from || len(recs) == n {
				continue
			}
			ts := b.BaseTimestamp() + r.TimestampDelta
			if b.LogAppendTime() {
				ts = b.MaxTimestamp()
			}
			recs = append(recs, Record{Offset: off, Timestamp: ts, Key: r.Key, Value: r.Value, Headers: r.Headers, Transactional: b.IsTransactional()})
			next = off + 1
		}
	}
	return recs, next, nil
}
