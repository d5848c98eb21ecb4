package log

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// AbortedTxnSize is the size of one .txnindex entry.
const AbortedTxnSize = 34

// AbortedTxn is one entry of a segment's aborted transaction index
// (Kafka's AbortedTxn, KIP-98). On storage it is version int16 (0),
// producer id int64, first offset int64, last offset int64 and last stable
// offset int64, big-endian: 34 bytes. The entry lives in the segment that
// holds the abort marker (LastOffset); FirstOffset may lie in an earlier
// segment. LastStableOffset is the LSO right after the marker, which lets
// a lookup stop early.
type AbortedTxn struct {
	ProducerID       int64
	FirstOffset      int64
	LastOffset       int64
	LastStableOffset int64
}

func appendAbortedTxn(dst []byte, a AbortedTxn) []byte {
	be := binary.BigEndian
	dst = be.AppendUint16(dst, 0)
	dst = be.AppendUint64(dst, uint64(a.ProducerID))
	dst = be.AppendUint64(dst, uint64(a.FirstOffset))
	dst = be.AppendUint64(dst, uint64(a.LastOffset))
	return be.AppendUint64(dst, uint64(a.LastStableOffset))
}

// parseTxnIndex decodes a .txnindex file of the segment [base, next):
// the entries whose marker is inside the segment, and why the file cannot
// be trusted beyond them ("" when it can). Entries for markers at or past
// next (lost with a torn tail) are dropped without complaint.
func parseTxnIndex(data []byte, base, next int64) ([]AbortedTxn, bool, string) {
	be := binary.BigEndian
	var out []AbortedTxn
	if len(data)%AbortedTxnSize != 0 {
		return nil, false, fmt.Sprintf("size %d is not a multiple of %d", len(data), AbortedTxnSize)
	}
	dropped := false
	for p := data; len(p) > 0; p = p[AbortedTxnSize:] {
		if v := int16(be.Uint16(p)); v != 0 {
			return nil, false, fmt.Sprintf("entry version %d", v)
		}
		a := AbortedTxn{
			ProducerID: int64(be.Uint64(p[2:])), FirstOffset: int64(be.Uint64(p[10:])),
			LastOffset: int64(be.Uint64(p[18:])), LastStableOffset: int64(be.Uint64(p[26:])),
		}
		if a.LastOffset >= next {
			dropped = true
			break
		}
		if a.LastOffset < base || a.FirstOffset > a.LastOffset ||
			len(out) > 0 && a.LastOffset <= out[len(out)-1].LastOffset {
			return nil, false, fmt.Sprintf("entry %d..%d out of order", a.FirstOffset, a.LastOffset)
		}
		out = append(out, a)
	}
	return out, dropped, ""
}

func (s *segment) txnIndexName() string {
	return path.Join(path.Dir(s.names[0]), FileName(s.base, TxnIndexSuffix))
}

// loadTxnIndex reads the segment's .txnindex, if it has one. A corrupt
// file is deleted and the segment is remembered in txnSuspect, so that
// the owner replays the log from there and adds the entries again.
func (l *Log) loadTxnIndex(s *segment, note func(string, ...any)) error {
	name := s.txnIndexName()
	data, err := l.st.ReadFile(name)
	if errors.Is(err, store.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	txns, dropped, why := parseTxnIndex(data, s.base, s.next)
	for _, a := range txns {
		if why != "" {
			break
		}
		why = l.checkAborted(s, a)
	}
	if why != "" {
		note("deleted %s (%s); it will be rebuilt from the log", path.Base(name), why)
		if err := l.st.Remove(name); err != nil {
			return err
		}
		if l.txnSuspect < 0 || s.base < l.txnSuspect {
			l.txnSuspect = s.base
		}
		return nil
	}
	if dropped {
		note("dropped entries of %s past the log end %d", path.Base(name), s.next)
		if err := l.st.WriteFile(name, data[:len(txns)*AbortedTxnSize]); err != nil {
			return err
		}
	}
	f, err := l.st.Open(name)
	if err != nil {
		return err
	}
	s.txnF, s.txns = f, txns
	return nil
}

// checkAborted checks an entry of s's .txnindex against the log: the
// index has no checksum (Kafka's neither), and Fetch hands its entries to
// read_committed consumers, so a byte flipped at rest would show them an
// aborted transaction's records, or hide a committed one's. The entry is
// refused when the log contradicts it: the batch at LastOffset is
// transactional but not that producer's marker ending there, or the batch
// holding FirstOffset is another producer's transactional data or a
// marker. (A flip that points an entry at plain, non-transactional
// batches goes unseen: they cannot tell.) Batches read must pass their
// CRC. It returns why the entry cannot be trusted, or "". It reads one or
// two batches per aborted transaction, at Open only.
func (l *Log) checkAborted(s *segment, a AbortedTxn) string {
	bad := func(what string) string {
		return fmt.Sprintf("entry pid=%d %d..%d: %s", a.ProducerID, a.FirstOffset, a.LastOffset, what)
	}
	m, err := s.batchAt(l.hdr[:], a.LastOffset)
	switch {
	case err != nil:
		return bad(err.Error())
	case m == nil || m.BaseOffset() > a.LastOffset:
		return bad("no batch at its last offset")
	case m.IsTransactional() && (!m.IsControl() || m.ProducerID() != a.ProducerID || m.LastOffset() != a.LastOffset):
		return bad(fmt.Sprintf("the batch there is pid %d's, control %v", m.ProducerID(), m.IsControl()))
	}
	fs := s
	if a.FirstOffset < s.base {
		i := l.segmentFor(a.FirstOffset)
		if i >= len(l.segs) {
			return bad("its first offset is before the log")
		}
		fs = l.segs[i]
	}
	b, err := fs.batchAt(l.hdr[:], a.FirstOffset)
	if err != nil {
		return bad(err.Error())
	}
	if b != nil && b.BaseOffset() <= a.FirstOffset && b.IsTransactional() && (b.IsControl() || b.ProducerID() != a.ProducerID) {
		return bad(fmt.Sprintf("its first offset holds pid %d's batch, control %v", b.ProducerID(), b.IsControl()))
	}
	return ""
}

// batchAt reads the whole batch holding offset, or the first one after it
// (a compacted segment has gaps), checking its CRC; nil past the end.
func (s *segment) batchAt(hdr []byte, offset int64) (record.Batch, error) {
	pos, ok, err := s.find(hdr, offset)
	if err != nil || !ok {
		return nil, err
	}
	_, n, err := s.readHeader(hdr, pos)
	if err != nil {
		return nil, err
	}
	b := make(record.Batch, n)
	if _, err := s.log.ReadAt(b, pos); err != nil {
		return nil, err
	}
	if err := record.ValidateStored(b); err != nil {
		return nil, fmt.Errorf("%w: %s at position %d: %w", ErrCorrupt, s.name(), pos, err)
	}
	return b, nil
}

// truncateTxns drops the entries whose marker is at or past next.
func (s *segment) truncateTxns(next int64) error {
	n := len(s.txns)
	for n > 0 && s.txns[n-1].LastOffset >= next {
		n--
	}
	if n == len(s.txns) {
		return nil
	}
	s.txns = s.txns[:n]
	s.dirty = true
	return s.txnF.Truncate(int64(n * AbortedTxnSize))
}

// AddAbortedTxn records an aborted transaction in the .txnindex of the
// segment that holds its abort marker (a.LastOffset), creating the file on
// first use as Kafka's TransactionIndex does. An entry whose marker is not
// past the segment's last entry is already there (a replay after a
// restart) and is skipped.
func (l *Log) AddAbortedTxn(a AbortedTxn) error {
	if l.closed {
		return ErrClosed
	}
	if a.LastOffset < l.segs[0].base || a.LastOffset >= l.EndOffset() {
		return fmt.Errorf("%w: %s: abort marker at %d is outside the log", ErrOffsetOutOfRange, l.name, a.LastOffset)
	}
	s := l.segs[l.segmentFor(a.LastOffset)]
	if n := len(s.txns); n > 0 && s.txns[n-1].LastOffset >= a.LastOffset {
		return nil
	}
	if s.txnF == nil {
		f, err := createFresh(l.st, s.txnIndexName())
		if err != nil {
			return err
		}
		s.txnF = f
	}
	if err := s.txnF.Append(appendAbortedTxn(nil, a)); err != nil {
		return err
	}
	s.txns = append(s.txns, a)
	s.dirty = true
	return nil
}

// AbortedTxns lists the aborted transactions with data in [from, upTo): a
// marker at or after from and a first offset below upTo, in marker order,
// for a read_committed fetch (Kafka's LocalLog.collectAbortedTransactions).
// It reads the .txnindex of the segment holding from and of the later
// ones, and stops at an entry whose last stable offset reaches upTo: every
// transaction with data below upTo had ended by then.
func (l *Log) AbortedTxns(from, upTo int64) []AbortedTxn {
	var out []AbortedTxn
	if l.closed {
		return nil
	}
	for i := l.segmentFor(from); i < len(l.segs); i++ {
		for _, a := range l.segs[i].txns {
			if a.LastOffset >= from && a.FirstOffset < upTo {
				out = append(out, a)
			}
			if a.LastStableOffset >= upTo {
				return out
			}
		}
	}
	return out
}

// TxnIndexSuspect is the base offset of the earliest segment whose
// .txnindex was found corrupt and deleted at Open, or -1. Its owner
// replays the log from a producer snapshot at or below it and calls
// AddAbortedTxn for every abort it meets (Kafka's LogLoader rebuilds the
// transaction index the same way when it recovers a segment).
func (l *Log) TxnIndexSuspect() int64 { return l.txnSuspect }

// AbortedTxnEntries returns a copy of one segment's .txnindex entries, by
// segment base offset, for views and tests.
func (l *Log) AbortedTxnEntries(base int64) []AbortedTxn {
	for _, s := range l.segs {
		if s.base == base {
			return append([]AbortedTxn(nil), s.txns...)
		}
	}
	return nil
}
