package view

import (
	"cmp"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

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
// out the control batches (transaction markers) and, as Kafka's consumer
// does at read_committed, the batches of the transactions aborted lists
// (the answer's AbortedTransactions: empty at read_uncommitted, so every
// transaction's records are kept there); next is the offset to read from
// for the records that follow. A batch cut short at the end of the set
// (the fetch's byte limit) ends the records.
func RecordsOf(batches []byte, aborted []kmsg.FetchResponseTopicPartitionAbortedTransaction, from int64, n int) (recs []Record, next int64, err error) {
	next = from
	// Kafka's Fetcher: an aborted transaction's producer joins the set of
	// aborted producers once the batches reach its first offset; that
	// producer's next control batch (its ABORT marker) takes it out.
	pending := slices.SortedFunc(slices.Values(aborted), func(a, b kmsg.FetchResponseTopicPartitionAbortedTransaction) int {
		return cmp.Compare(a.FirstOffset, b.FirstOffset)
	})
	abortedBy := map[int64]bool{}
	it := record.NewIter(batches)
	for len(recs) < n {
		b, ok := it.Next()
		if !ok {
			break
		}
		for len(pending) > 0 && pending[0].FirstOffset <= b.LastOffset() {
			abortedBy[pending[0].ProducerID] = true
			pending = pending[1:]
		}
		skip := b.IsControl() || b.IsTransactional() && abortedBy[b.ProducerID()]
		if b.IsControl() {
			delete(abortedBy, b.ProducerID())
		}
		if b.LastOffset() < from {
			continue
		}
		if skip {
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
