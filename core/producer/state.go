package producer

import (
	"fmt"
	"math"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/record"
)

// BatchesToRetain is how many recent batches per producer are kept for
// duplicate detection (Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN,
// equal to the largest max.in.flight.requests.per.connection that keeps
// idempotence).
const BatchesToRetain = 5

// BatchMeta is what is remembered of one appended batch.
type BatchMeta struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset int64
	Timestamp               int64 // the batch's max timestamp
}

// Entry is the state of one producer id on this partition.
type Entry struct {
	ProducerID       int64
	Epoch            int16 // -1 before any batch or marker
	CoordinatorEpoch int32 // -1 before any marker
	LastTimestamp    int64 // -1 before any batch or marker
	// TxnFirstOffset is the first offset of the producer's open
	// transaction on this partition, -1 when none is open.
	TxnFirstOffset int64
	Batches        []BatchMeta // oldest first, at most BatchesToRetain
}

// LastSeq is the sequence of the last record appended in the current
// epoch, or -1.
func (e *Entry) LastSeq() int32 {
	if len(e.Batches) == 0 {
		return record.NoSequence
	}
	return e.Batches[len(e.Batches)-1].LastSeq
}

func (e *Entry) clone() Entry {
	c := *e
	c.Batches = append([]BatchMeta(nil), e.Batches...)
	return c
}

// Txn is a transaction on this partition: open (LastOffset -1) or
// completed, with the offset of its marker.
type Txn struct {
	ProducerID  int64
	FirstOffset int64
	LastOffset  int64
}

// CompletedTxn is what a marker closed. LastStableOffset is the LSO right
// after it, ignoring the high watermark: the first offset of the earliest
// transaction still open, or the offset after the marker. It is stored in
// the aborted transaction index (Kafka's CompletedTxn + lastStableOffset).
type CompletedTxn struct {
	ProducerID       int64
	FirstOffset      int64
	LastOffset       int64 // the marker's offset
	Aborted          bool
	LastStableOffset int64
}

// State is one partition's producer state (Kafka's ProducerStateManager).
// The zero value is not usable; call New.
type State struct {
	producers map[int64]*Entry
	// ongoing holds the open transactions, sorted by first offset.
	ongoing []Txn
	// unreplicated holds completed transactions whose marker may not be
	// below the high watermark yet; they still hold the LSO back so a
	// read_committed consumer never sees data before its marker is
	// committed.
	unreplicated []Txn
}

// New returns an empty state.
func New() *State { return newState(0) }

// newState returns an empty state with room for n producers.
func newState(n int64) *State { return &State{producers: make(map[int64]*Entry, n)} }

// Verdict is the outcome of CheckAppend.
type Verdict struct {
	ErrorCode int16 // a pkg/kerr code, 0 when the batch may be appended
	Message   string
	// Duplicate is set (with ErrorCode 0) when the batch repeats one of
	// the producer's last five batches: do not append, answer with its
	// offsets.
	Duplicate *BatchMeta
}

func reject(err *kerr.Error, format string, args ...any) Verdict {
	return Verdict{ErrorCode: err.Code, Message: fmt.Sprintf(format, args...)}
}

// inSequence reports whether next follows last (wrapping at MaxInt32).
func inSequence(last, next int32) bool {
	return int64(next) == int64(last)+1 || next == 0 && last == math.MaxInt32
}

// CheckAppend validates a batch from a client before it is appended
// (Kafka's UnifiedLog.analyzeAndValidateProducerState and
// ProducerAppendInfo.appendDataBatch with origin CLIENT). Batches without
// a producer id always pass.
func (s *State) CheckAppend(b record.Batch) Verdict {
	pid := b.ProducerID()
	if pid < 0 {
		if b.IsTransactional() {
			return reject(kerr.InvalidRecord, "transactional batch without a producer id")
		}
		return Verdict{}
	}
	epoch, first, last := b.ProducerEpoch(), b.BaseSequence(), b.LastSequence()
	if first < 0 || epoch < 0 {
		return reject(kerr.InvalidRecord, "batch of producer %d has epoch %d and sequence %d", pid, epoch, first)
	}
	e := s.producers[pid]
	if e == nil {
		// Unknown producer: any sequence starts it (KIP-360).
		return Verdict{}
	}
	if epoch == e.Epoch {
		for i := range e.Batches {
			if m := &e.Batches[i]; m.FirstSeq == first && m.LastSeq == last {
				d := *m
				return Verdict{Duplicate: &d}
			}
		}
	}
	if e.Epoch >= 0 {
		switch {
		case epoch < e.Epoch:
			return reject(kerr.InvalidProducerEpoch, "producer %d epoch %d is older than the current epoch %d", pid, epoch, e.Epoch)
		case epoch > e.Epoch && first != 0:
			return reject(kerr.OutOfOrderSequenceNumber, "producer %d new epoch %d must start at sequence 0, not %d", pid, epoch, first)
		case epoch == e.Epoch && !inSequence(e.LastSeq(), first):
			return reject(kerr.OutOfOrderSequenceNumber, "producer %d epoch %d: sequence %d does not follow %d", pid, epoch, first, e.LastSeq())
		}
	}
	if e.TxnFirstOffset >= 0 && !b.IsTransactional() {
		return reject(kerr.InvalidTxnState, "producer %d has a transaction open since offset %d; non-transactional batch refused", pid, e.TxnFirstOffset)
	}
	return Verdict{}
}

// Marker is a transaction marker as WriteTxnMarkers carries it.
type Marker struct {
	ProducerID       int64
	ProducerEpoch    int16
	Commit           bool
	CoordinatorEpoch int32
	// TransactionVersion is 0 or 1 for classic transactions and 2 for
	// KIP-890 part 2, where the coordinator bumps the epoch before it
	// writes markers.
	TransactionVersion int8
}

// CheckMarker validates a marker before it is appended (Kafka's
// ProducerAppendInfo.appendEndTxnMarker with origin COORDINATOR). It
// returns 0 or a pkg/kerr code and a message.
func (s *State) CheckMarker(m Marker) (int16, string) {
	e := s.producers[m.ProducerID]
	if e == nil {
		return 0, ""
	}
	bad := m.ProducerEpoch < e.Epoch
	if m.TransactionVersion >= 2 {
		bad = m.ProducerEpoch <= e.Epoch &&
			!(m.ProducerEpoch == e.Epoch && e.TxnFirstOffset < 0) // retry of a written marker
	}
	if bad {
		return kerr.InvalidProducerEpoch.Code, fmt.Sprintf("marker for producer %d has epoch %d, current epoch is %d", m.ProducerID, m.ProducerEpoch, e.Epoch)
	}
	if m.CoordinatorEpoch < e.CoordinatorEpoch {
		return kerr.TransactionCoordinatorFenced.Code, fmt.Sprintf("marker for producer %d has coordinator epoch %d, current is %d (zombie coordinator)", m.ProducerID, m.CoordinatorEpoch, e.CoordinatorEpoch)
	}
	return 0, ""
}

func (s *State) entry(pid int64) *Entry {
	e := s.producers[pid]
	if e == nil {
		e = &Entry{ProducerID: pid, Epoch: -1, CoordinatorEpoch: -1, LastTimestamp: -1, TxnFirstOffset: -1}
		s.producers[pid] = e
	}
	return e
}

// setEpoch moves the entry to epoch; a new epoch forgets the old batches
// (Kafka's maybeUpdateProducerEpoch).
func (e *Entry) setEpoch(epoch int16) {
	if e.Epoch != epoch {
		e.Epoch = epoch
		e.Batches = e.Batches[:0]
	}
}

// Apply records a batch that is now in the log at its offsets: a data
// batch (new sequence range, maybe a new transaction) or a transaction
// marker. It does not validate: the broker checked client batches before
// the append, and recovery replays what the log holds. Batches without a
// producer id change nothing. For a marker that closed a transaction it
// returns the completed transaction and true. The error reports a control
// batch whose marker cannot be decoded.
func (s *State) Apply(b record.Batch) (CompletedTxn, bool, error) {
	pid := b.ProducerID()
	if pid < 0 {
		return CompletedTxn{}, false, nil
	}
	if b.IsControl() {
		return s.applyMarker(b)
	}
	e := s.entry(pid)
	e.setEpoch(b.ProducerEpoch())
	if len(e.Batches) == BatchesToRetain {
		e.Batches = append(e.Batches[:0], e.Batches[1:]...)
	}
	e.Batches = append(e.Batches, BatchMeta{
		FirstSeq: b.BaseSequence(), LastSeq: b.LastSequence(),
		FirstOffset: b.BaseOffset(), LastOffset: b.LastOffset(),
		Timestamp: b.MaxTimestamp(),
	})
	e.LastTimestamp = b.MaxTimestamp()
	if b.IsTransactional() && e.TxnFirstOffset < 0 {
		e.TxnFirstOffset = b.BaseOffset()
		s.ongoing = insertTxn(s.ongoing, Txn{ProducerID: pid, FirstOffset: e.TxnFirstOffset, LastOffset: -1})
	}
	return CompletedTxn{}, false, nil
}

func (s *State) applyMarker(b record.Batch) (CompletedTxn, bool, error) {
	kind, coordEpoch, err := DecodeMarker(b)
	if err != nil {
		return CompletedTxn{}, false, err
	}
	if kind != ControlAbort && kind != ControlCommit {
		return CompletedTxn{}, false, nil // another control type: not ours
	}
	e := s.entry(b.ProducerID())
	e.setEpoch(b.ProducerEpoch())
	e.CoordinatorEpoch = coordEpoch
	e.LastTimestamp = b.MaxTimestamp()
	if e.TxnFirstOffset < 0 {
		// An empty transaction on this partition: nothing to close, and
		// nothing for the LSO or the aborted index (as in Kafka).
		return CompletedTxn{}, false, nil
	}
	c := CompletedTxn{ProducerID: e.ProducerID, FirstOffset: e.TxnFirstOffset, LastOffset: b.BaseOffset(), Aborted: kind == ControlAbort}
	s.ongoing = removeTxn(s.ongoing, e.ProducerID, e.TxnFirstOffset)
	e.TxnFirstOffset = -1
	s.unreplicated = insertTxn(s.unreplicated, Txn{ProducerID: c.ProducerID, FirstOffset: c.FirstOffset, LastOffset: c.LastOffset})
	c.LastStableOffset = c.LastOffset + 1
	if len(s.ongoing) > 0 {
		c.LastStableOffset = s.ongoing[0].FirstOffset
	}
	return c, true, nil
}

func insertTxn(list []Txn, t Txn) []Txn {
	i := sort.Search(len(list), func(i int) bool { return list[i].FirstOffset > t.FirstOffset })
	list = append(list, Txn{})
	copy(list[i+1:], list[i:])
	list[i] = t
	return list
}

func removeTxn(list []Txn, pid, first int64) []Txn {
	for i, t := range list {
		if t.ProducerID == pid && t.FirstOffset == first {
			return append(list[:i], list[i+1:]...)
		}
	}
	panic(fmt.Sprintf("producer: open transaction of %d at %d missing from %v", pid, first, list))
}

// LastStableOffset is the offset below which every transaction is decided
// and whose markers are below the high watermark hw: the smaller of hw and
// the first offset of the earliest open (or not yet replicated) transaction
// (Kafka's UnifiedLog.lastStableOffset). Completed transactions whose
// marker is below hw are forgotten here (Kafka's onHighWatermarkUpdated).
func (s *State) LastStableOffset(hw int64) int64 {
	kept := s.unreplicated[:0]
	for _, t := range s.unreplicated {
		if t.LastOffset >= hw {
			kept = append(kept, t)
		}
	}
	s.unreplicated = kept
	lso := hw
	if len(s.ongoing) > 0 {
		lso = min(lso, s.ongoing[0].FirstOffset)
	}
	if len(s.unreplicated) > 0 {
		lso = min(lso, s.unreplicated[0].FirstOffset)
	}
	return lso
}

// Ongoing lists the open transactions, earliest first.
func (s *State) Ongoing() []Txn { return append([]Txn(nil), s.ongoing...) }

// Get returns a copy of one producer's entry.
func (s *State) Get(pid int64) (Entry, bool) {
	e, ok := s.producers[pid]
	if !ok {
		return Entry{}, false
	}
	return e.clone(), true
}

// Entries lists every producer's entry, by producer id (for
// DescribeProducers and views).
func (s *State) Entries() []Entry {
	out := make([]Entry, 0, len(s.producers))
	for _, e := range s.producers {
		out = append(out, e.clone())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ProducerID < out[j].ProducerID })
	return out
}

// Len is the number of producers known.
func (s *State) Len() int { return len(s.producers) }

// Expire forgets producers without an open transaction whose last
// timestamp is more than maxAgeMs before now (producer.id.expiration.ms,
// KIP-854), and returns their ids in order. A retry from an expired
// producer is accepted at any sequence, as from an unknown one.
func (s *State) Expire(now, maxAgeMs int64) []int64 {
	var gone []int64
	for pid, e := range s.producers {
		if e.TxnFirstOffset < 0 && now-e.LastTimestamp >= maxAgeMs {
			gone = append(gone, pid)
		}
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i] < gone[j] })
	for _, pid := range gone {
		delete(s.producers, pid)
	}
	return gone
}
