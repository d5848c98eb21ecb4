package view

import (
	"fmt"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/log"
	pstate "github.com/gregor-kafka/gregor/core/producer"
	"github.com/gregor-kafka/gregor/core/record"
)

// MaxBatches is how many batches of one replica's log a snapshot keeps:
// the newest ones. The older are counted (Partition.Earlier), not drawn.
const MaxBatches = 24

// Batch is one record batch of a replica's log, drawn as a cell. Its
// kind is told by a glyph as well as a colour (Glyph).
type Batch struct {
	Base, Last  int64
	Records     int32
	LeaderEpoch int32 // the partition leader epoch the leader stamped (KIP-101)
	ProducerID  int64 // -1: a producer without an id
	Epoch       int16
	Seq         int32 // base sequence, -1 when none (KIP-98)
	// Transactional is the batch's transactional bit; Control is
	// "COMMIT" or "ABORT" for a control batch (a transaction marker),
	// "" for data.
	Transactional bool
	Control       string
	// Aborted marks transactional data of an aborted transaction: the
	// .txnindex of the segment holding the ABORT marker covers it
	// (KIP-98's aborted transaction index). Open marks transactional
	// data whose transaction has no marker yet: the partition's
	// producer state holds it open, and the LSO stays at or below it.
	Aborted, Open bool
	New           bool // appended in this step (MarkChanges)
	// Scanned marks a batch whose header the step's lookup read;
	// Found the one holding what it looked for.
	Scanned, Found bool
}

// Kind names the batch's kind for a view: "commit" and "abort" markers,
// "aborted", "open" and "txn" transactional data, "idem" data with a
// producer id, "data" without.
func (b Batch) Kind() string {
	switch {
	case b.Control == "COMMIT":
		return "commit"
	case b.Control != "":
		return "abort"
	case b.Aborted:
		return "aborted"
	case b.Open:
		return "open"
	case b.Transactional:
		return "txn"
	case b.ProducerID >= 0:
		return "idem"
	}
	return "data"
}

// Glyph is the batch's kind in one character, so that no view tells
// kinds apart by colour alone.
func (b Batch) Glyph() string {
	return map[string]string{"commit": "C", "abort": "A", "aborted": "✗", "open": "…", "txn": "T", "idem": "I", "data": "·"}[b.Kind()]
}

// Span is the batch's offsets: "7" or "4..6".
func (b Batch) Span() string {
	if b.Last > b.Base {
		return fmt.Sprintf("%d..%d", b.Base, b.Last)
	}
	return fmt.Sprint(b.Base)
}

// Describe is the batch in one line, for a cell's tooltip.
func (b Batch) Describe() string {
	s := fmt.Sprintf("offsets %s, %d record(s), leader epoch %d", b.Span(), b.Records, b.LeaderEpoch)
	if b.ProducerID >= 0 {
		s += fmt.Sprintf(", pid=%d epoch=%d", b.ProducerID, b.Epoch)
		if b.Seq >= 0 {
			s += fmt.Sprintf(" seq=%d", b.Seq)
		}
	}
	switch b.Kind() {
	case "commit", "abort":
		s += ", control " + b.Control + " marker"
	case "aborted":
		s += ", transactional, ABORTED: read_committed consumers skip it"
	case "open":
		s += ", transactional, not decided yet"
	case "txn":
		s += ", transactional, committed"
	}
	return s
}

// readBatches reads the newest MaxBatches batches of a partition's log
// into its segments, each batch's kind decided from the markers, the
// segments' aborted transaction indexes and the producer state, and
// returns how many older batches it left out. With tail it reads from
// MaxBatches offsets before the log's end only, and returns -1 when
// older batches exist, uncounted.
func readBatches(p *broker.Partition, segs []Segment, infos []log.SegmentInfo, tail bool) int {
	var aborted []log.AbortedTxn
	for _, s := range infos {
		aborted = append(aborted, s.AbortedTxns...)
	}
	open := map[int64]int64{} // producer id → first offset of its open transaction
	if ps := p.Producers(); ps != nil {
		for _, e := range ps.Entries() {
			if e.TxnFirstOffset >= 0 {
				open[e.ProducerID] = e.TxnFirstOffset
			}
		}
	}
	var all []Batch
	l := p.Log()
	from := l.StartOffset()
	if tail {
		from = max(from, l.EndOffset()-MaxBatches)
	}
	err := l.Scan(from, func(rb record.Batch) error {
		all = append(all, batchOf(rb, aborted, open))
		return nil
	})
	if err != nil {
		return 0
	}
	earlier := max(0, len(all)-MaxBatches)
	for _, b := range all[earlier:] {
		for i := range segs {
			if b.Base >= segs[i].Base && (b.Base < segs[i].Next || segs[i].Active) {
				segs[i].Batches = append(segs[i].Batches, b)
				break
			}
		}
	}
	if tail && (earlier > 0 || len(all) > 0 && all[0].Base > l.StartOffset()) {
		return -1 // older batches exist; the tail does not count them
	}
	return earlier
}

func batchOf(rb record.Batch, aborted []log.AbortedTxn, open map[int64]int64) Batch {
	b := Batch{
		Base: rb.BaseOffset(), Last: rb.LastOffset(), Records: rb.RecordCount(), LeaderEpoch: rb.PartitionLeaderEpoch(),
		ProducerID: rb.ProducerID(), Epoch: rb.ProducerEpoch(), Seq: rb.BaseSequence(), Transactional: rb.IsTransactional(),
	}
	if rb.IsControl() {
		b.Seq = -1
		b.Control = "ABORT"
		if kind, _, err := pstate.DecodeMarker(rb); err == nil && kind == pstate.ControlCommit {
			b.Control = "COMMIT"
		}
		return b
	}
	if !b.Transactional {
		return b
	}
	for _, a := range aborted {
		if a.ProducerID == b.ProducerID && b.Base >= a.FirstOffset && b.Base <= a.LastOffset {
			b.Aborted = true
			return b
		}
	}
	if first, ok := open[b.ProducerID]; ok && b.Base >= first {
		b.Open = true
	}
	return b
}

// Lookup is how the step's lookup command found a record (seed 004):
// which replica and segment it searched, and what it looked for. The
// index entries it probed and the batches it scanned are marked in the
// partition's segments (Entry.Probed, Batch.Scanned).
type Lookup struct {
	Broker, Partition string
	Segment           string // the .log file searched
	Target            string // "offset 7", "timestamp >= 1005000"
	Found             bool   // a batch holds it
}

// markNewBatches flags the batches at or past the log end before the step.
func markNewBatches(p *Partition, prevLEO int64) {
	for i := range p.Segments {
		for j := range p.Segments[i].Batches {
			b := &p.Segments[i].Batches[j]
			b.New = b.Base >= prevLEO
		}
	}
}
