package log

import (
	"fmt"
	"path"
	"sort"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// Log is one partition's log: an ordered list of segments, the last of
// which (the active segment) takes appends (Kafka's UnifiedLog/LocalLog).
type Log struct {
	st          store.Storage
	dir         string
	name        string // partition name used in notes, e.g. "orders-0"
	cfg         Config
	segs        []*segment
	start       int64 // log start offset
	recoveryPt  int64 // everything below is synced (Kafka's recovery point)
	lastFlushMs int64
	closed      bool
	hdr         [record.HeaderSize]byte // scratch for header reads
	// indexesAtSync: index entries wait for the segment's sync
	// (store.IndexesAtSync).
	indexesAtSync bool

	snapshotter Snapshotter
	snaps       []int64 // offsets of the .snapshot files, ascending
	txnSuspect  int64   // see TxnIndexSuspect

	clean cleaner // compaction state (compact.go)
}

func (l *Log) active() *segment { return l.segs[len(l.segs)-1] }

// StartOffset is the log start offset: the first offset a consumer may
// fetch (KIP-107 moves it with DeleteRecords).
func (l *Log) StartOffset() int64 { return l.start }

// EndOffset is the log end offset (LEO): the offset the next record gets.
func (l *Log) EndOffset() int64 { return l.active().next }

// RecoveryPoint is the offset below which every record has been synced
// (Kafka's recovery point); a failed Flush leaves it where it was.
func (l *Log) RecoveryPoint() int64 { return l.recoveryPt }

// Config returns the current settings.
func (l *Log) Config() Config { return l.cfg }

// SetConfig changes the settings; they apply from the next append, roll or
// retention pass, as a dynamic topic config change does in Kafka.
// A pass of the cleaner in progress ends if the log is no longer
// compacted.
func (l *Log) SetConfig(c Config) {
	if !c.Compact {
		l.abortClean()
	}
	l.cfg = c
}

// Size is the total size of the segment files, in bytes.
func (l *Log) Size() int64 {
	var n int64
	for _, s := range l.segs {
		n += s.size
	}
	return n
}

// Dir is the partition directory.
func (l *Log) Dir() string { return l.dir }

// Append writes one batch at the end of the log, stamping its base offset
// with the log end offset (b is modified; its CRC does not cover the base
// offset). The caller has validated b. Before writing, the active segment
// is rolled (Kafka's LogSegment.shouldRoll) when it is not empty and
//   - the batch would take it past segment.bytes, or
//   - its first batch was appended more than segment.ms ago (by the append
//     clock `now`; Kafka measures from the first batch's timestamp, which a
//     client controls, so Gregor uses the broker's clock instead; a
//     compacted log uses max.compaction.lag.ms if shorter), or
//   - its offset or time index reached segment.index.bytes, or
//   - the batch's offsets no longer fit in a 32-bit delta from its base.
func (l *Log) Append(b record.Batch, now int64) (int64, error) {
	if l.closed {
		return 0, ErrClosed
	}
	return l.appendAt(b, l.EndOffset(), now)
}

// AppendAsFollower appends a batch of the leader's log at its own base
// offset, which may lie past the log end: the leader's log may have been
// compacted, leaving gaps (Kafka's appendAsFollower).
func (l *Log) AppendAsFollower(b record.Batch, now int64) error {
	if l.closed {
		return ErrClosed
	}
	if len(b) >= record.HeaderSize && b.BaseOffset() < l.EndOffset() {
		return fmt.Errorf("%w: %s: follower batch at %d is below the log end %d", ErrOffsetOutOfRange, l.name, b.BaseOffset(), l.EndOffset())
	}
	_, err := l.appendAt(b, b.BaseOffset(), now)
	return err
}

func (l *Log) appendAt(b record.Batch, leo, now int64) (int64, error) {
	if len(b) < record.HeaderSize || b.Size() != len(b) || b.LastOffsetDelta() < 0 {
		return 0, fmt.Errorf("%w: append of a malformed batch (%d bytes)", ErrCorrupt, len(b))
	}
	seg := l.active()
	if leo != seg.next {
		// A follower's batch past a gap in the leader's compacted log
		// starts a segment of its own: the active segment stays
		// contiguous, which recovery checks.
		if err := l.rollAt(leo, now); err != nil {
			return 0, err
		}
		seg = l.active()
	}
	if seg.size > 0 && (seg.size+int64(len(b)) > l.cfg.SegmentBytes ||
		now-seg.rollStart > l.cfg.rollMs() ||
		seg.indexFull(l.cfg) ||
		!fitsRelative(seg.base, leo+int64(b.LastOffsetDelta()))) {
		if err := l.roll(now); err != nil {
			return 0, err
		}
		seg = l.active()
	}
	b.SetBaseOffset(leo)
	if err := seg.append(b, l.cfg, now, l.indexesAtSync); err != nil {
		return 0, err
	}
	return leo, nil
}

// roll seals the active segment and starts a new one at the log end.
func (l *Log) roll(now int64) error { return l.rollAt(l.active().next, now) }

// rollAt seals the active segment and starts a new one at base (>= the
// log end); an empty active segment is replaced instead.
func (l *Log) rollAt(base, now int64) error {
	old := l.active()
	if old.size == 0 {
		_ = old.close()
		if err := removeSegmentFiles(l.st, l.dir, old.base); err != nil {
			return err
		}
		l.segs = l.segs[:len(l.segs)-1]
	} else if err := old.seal(); err != nil {
		return err
	}
	seg, err := createSegment(l.st, l.dir, base, now)
	if err != nil {
		return err
	}
	l.segs = append(l.segs, seg)
	if len(l.segs) == 1 {
		l.start = max(l.start, base)
	}
	// Every batch below the new base is synced: a snapshot here never
	// describes data a crash could take back (Kafka snapshots at roll).
	return l.takeSnapshot(seg.base)
}

// Roll closes the active segment and starts a new one, unless the active
// segment is empty (Kafka's UnifiedLog.roll, used by tests and lessons).
func (l *Log) Roll(now int64) error {
	if l.closed {
		return ErrClosed
	}
	if l.active().size == 0 {
		return nil
	}
	return l.roll(now)
}

// segmentFor is the index of the last segment whose base is <= offset.
func (l *Log) segmentFor(offset int64) int {
	i := sort.Search(len(l.segs), func(i int) bool { return l.segs[i].base > offset })
	return max(i-1, 0)
}

func (l *Log) checkRange(offset int64) error {
	if offset < l.start || offset > l.EndOffset() {
		return fmt.Errorf("%w: %s: offset %d is outside [%d, %d]", ErrOffsetOutOfRange, l.name, offset, l.start, l.EndOffset())
	}
	return nil
}

// OffsetForTimestamp finds the earliest record at or after the log start
// whose timestamp is >= ts (ListOffsets with a timestamp, KIP-79), the way
// Kafka's LogSegment.findOffsetByTimestamp does: skip segments whose
// largest timestamp is smaller, look ts up in the time index, turn that
// offset into a position with the offset index, then scan batches and
// decode the records of the first batch whose max timestamp is >= ts. In a
// LogAppendTime batch every record has the batch's max timestamp.
func (l *Log) OffsetForTimestamp(ts int64) (offset int64, timestamp int64, ok bool, err error) {
	if l.closed {
		return 0, 0, false, ErrClosed
	}
	for _, seg := range l.segs {
		if seg.maxTs < ts || seg.next <= l.start {
			continue
		}
		te, _ := seg.tix.lookupFast(ts)
		from := max(te.Offset, l.start)
		pos := seg.ix.lookup(from).Position
		sc := newScanner(nil, seg.log, pos, seg.size, 64<<10, false)
		for {
			b, _, more := sc.next()
			if !more {
				break
			}
			if b.LastOffset() < l.start || b.MaxTimestamp() < ts {
				continue
			}
			if b.LogAppendTime() {
				return max(b.BaseOffset(), l.start), b.MaxTimestamp(), true, nil
			}
			recs, err := b.Records()
			if err != nil {
				return 0, 0, false, fmt.Errorf("%w: %s: batch at offset %d: %w", ErrCorrupt, seg.name(), b.BaseOffset(), err)
			}
			for _, r := range recs {
				o, t := b.BaseOffset()+int64(r.OffsetDelta), b.BaseTimestamp()+r.TimestampDelta
				if t >= ts && o >= l.start {
					return o, t, true, nil
				}
			}
		}
		if sc.err != nil {
			return 0, 0, false, sc.err
		}
	}
	return -1, -1, false, nil
}

// MaxTimestamp returns the largest timestamp in the log and the offset of
// the first record that carries it, for ListOffsets MAX_TIMESTAMP (KIP-734).
// Like Kafka it picks the segment with the largest timestamp, finds the
// batch through the indexes and decodes its records; if they cannot be
// decoded it falls back to the batch's last offset. (-1, -1) when no batch
// has a timestamp.
func (l *Log) MaxTimestamp() (timestamp int64, offset int64) {
	var best *segment
	for _, s := range l.segs {
		if s.maxTsOffset >= 0 && (best == nil || s.maxTs > best.maxTs) {
			best = s
		}
	}
	if best == nil || l.closed {
		return -1, -1
	}
	pos := best.ix.lookup(best.maxTsOffset).Position
	sc := newScanner(nil, best.log, pos, best.size, 64<<10, false)
	for {
		b, _, more := sc.next()
		if !more {
			break
		}
		if b.LastOffset() < best.maxTsOffset {
			continue
		}
		if b.LogAppendTime() {
			return best.maxTs, b.BaseOffset()
		}
		if recs, err := b.Records(); err == nil {
			for _, r := range recs {
				if b.BaseTimestamp()+r.TimestampDelta == best.maxTs {
					return best.maxTs, b.BaseOffset() + int64(r.OffsetDelta)
				}
			}
		}
		break
	}
	return best.maxTs, best.maxTsOffset
}

// NeedsFlush applies flush.messages and flush.ms: true when at least
// FlushMessages offsets were appended since the last flush, or some were
// and FlushMs passed since it (Kafka's UnifiedLog.append and LogManager's
// flush scheduler).
func (l *Log) NeedsFlush(now int64) bool {
	unflushed := l.EndOffset() - l.recoveryPt
	if l.closed || unflushed <= 0 {
		return false
	}
	return unflushed >= l.cfg.FlushMessages || now-l.lastFlushMs >= l.cfg.FlushMs
}

// Flush syncs every segment with unsynced bytes and moves the recovery
// point to the log end.
func (l *Log) Flush(now int64) error {
	if l.closed {
		return ErrClosed
	}
	for _, s := range l.segs {
		if err := s.sync(); err != nil {
			return err
		}
	}
	l.recoveryPt = l.EndOffset()
	l.lastFlushMs = now
	return nil
}

// SegmentInfo describes one segment for views and tests.
type SegmentInfo struct {
	BaseOffset, NextOffset int64
	Size                   int64
	Name                   string // the .log file name
	IndexEntries           []IndexEntry
	TimeIndexEntries       []TimeIndexEntry
	LargestTimestamp       int64        // -1 if no batch has a timestamp
	AbortedTxns            []AbortedTxn // the .txnindex entries
}

// LookupOffset runs the offset index binary search over the entries,
// returning the found entry and the probed ones (see OffsetIndex.Lookup).
func (si SegmentInfo) LookupOffset(target int64) (IndexEntry, []IndexEntry) {
	ix := &OffsetIndex{base: si.BaseOffset}
	for _, e := range si.IndexEntries {
		ix.buf = appendOffsetEntry(ix.buf, si.BaseOffset, e)
	}
	return ix.Lookup(target)
}

// LookupTimestamp runs the time index binary search over the entries.
func (si SegmentInfo) LookupTimestamp(target int64) (TimeIndexEntry, []TimeIndexEntry) {
	ix := &TimeIndex{base: si.BaseOffset}
	for _, e := range si.TimeIndexEntries {
		ix.buf = appendTimeEntry(ix.buf, si.BaseOffset, e)
	}
	return ix.Lookup(target)
}

// Segments describes every segment, oldest first.
func (l *Log) Segments() []SegmentInfo {
	out := make([]SegmentInfo, len(l.segs))
	for i, s := range l.segs {
		out[i] = SegmentInfo{
			BaseOffset: s.base, NextOffset: s.next, Size: s.size,
			Name:             path.Base(s.names[0]),
			IndexEntries:     s.ix.Entries(),
			TimeIndexEntries: s.tix.Entries(),
			LargestTimestamp: s.maxTs,
			AbortedTxns:      append([]AbortedTxn(nil), s.txns...),
		}
	}
	return out
}

// Close syncs and closes every file, then writes a producer snapshot at
// the log end if a Snapshotter is set (Kafka does at clean shutdown, so
// that the next start replays nothing). The Log is unusable afterwards.
func (l *Log) Close() error {
	if l.closed {
		return ErrClosed
	}
	first := l.closeFiles(true)
	if n := len(l.snaps); first == nil && (n == 0 || l.snaps[n-1] != l.EndOffset()) {
		// As Kafka's ProducerStateManager.takeSnapshot, only when the log
		// moved past the last snapshot: a broker of 10,000 idle
		// partitions stops without 10,000 file writes.
		first = l.takeSnapshot(l.EndOffset())
	}
	return first
}

// Abandon closes the log's files without syncing them or writing a
// producer snapshot, after a write or sync failed: a log must not vouch
// for what it could not sync. A restart's recovery rebuilds the rest.
func (l *Log) Abandon() error {
	if l.closed {
		return ErrClosed
	}
	return l.closeFiles(false)
}

// closeFiles closes every segment's files, syncing them first when sync,
// and marks the log closed.
func (l *Log) closeFiles(sync bool) error {
	l.abortClean()
	var first error
	for _, s := range l.segs {
		if sync {
			if err := s.sync(); err != nil && first == nil {
				first = err
			}
		}
		if err := s.close(); err != nil && first == nil {
			first = err
		}
	}
	l.closed = true
	return first
}

// Delete closes the log and removes its directory (topic deletion).
func (l *Log) Delete() error {
	l.abortClean()
	if !l.closed {
		for _, s := range l.segs {
			_ = s.close()
		}
		l.closed = true
	}
	return l.st.RemoveAll(l.dir)
}
