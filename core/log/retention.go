package log

import (
	"fmt"
)

// deleteOldest removes the first segment (never the active one).
func (l *Log) deleteOldest() error {
	l.abortClean()
	s := l.segs[0]
	if len(l.segs) == 1 {
		panic(fmt.Sprintf("log %s: deleting the active segment %s", l.name, s.name()))
	}
	_ = s.close()
	if err := removeSegmentFiles(l.st, l.dir, s.base); err != nil {
		return err
	}
	l.segs = l.segs[1:]
	if l.start < l.segs[0].base {
		l.start = l.segs[0].base
	}
	// A snapshot below the first segment cannot start a replay any more;
	// the one at its base (taken when it was rolled) can.
	base := l.segs[0].base
	return l.deleteSnapshots(func(o int64) bool { return o < base })
}

// deleteBelowStart deletes whole segments whose every offset is below the
// log start offset (Kafka's deleteLogStartOffsetBreachedSegments).
func (l *Log) deleteBelowStart(note func(string, ...any)) error {
	for len(l.segs) > 1 && l.segs[1].base <= l.start {
		name := l.segs[0].name()
		if err := l.deleteOldest(); err != nil {
			return err
		}
		if note != nil {
			note("deleted segment %s: below the log start offset %d", name, l.start)
		}
	}
	return nil
}

// DeleteRecordsBefore moves the log start offset up to offset (the
// DeleteRecords API, KIP-107) and deletes the segments that lie entirely
// below it. Moving it down is a no-op; beyond the log end is an error.
func (l *Log) DeleteRecordsBefore(offset int64) error {
	if l.closed {
		return ErrClosed
	}
	if offset > l.EndOffset() || offset < 0 {
		return fmt.Errorf("%w: %s: cannot delete records before %d, log end is %d",
			ErrOffsetOutOfRange, l.name, offset, l.EndOffset())
	}
	if offset <= l.start {
		return nil
	}
	l.start = offset
	return l.deleteBelowStart(nil)
}

// EnforceRetention deletes whole segments, oldest first and never the
// active one, as Kafka's UnifiedLog.deleteOldSegments does:
//
//   - retention.ms: while the oldest segment's largest timestamp is more
//     than RetentionMs before now;
//   - retention.bytes: while the log would still hold at least
//     RetentionBytes without the oldest segment;
//   - segments entirely below the log start offset.
//
// The first two apply only with cleanup.policy delete (Config.Delete).
//
// The log start offset moves up to the first remaining segment. It
// returns one note per deleted segment.
func (l *Log) EnforceRetention(now int64) []string {
	if l.closed {
		return nil
	}
	var notes []string
	note := func(format string, args ...any) {
		notes = append(notes, l.name+": "+fmt.Sprintf(format, args...))
	}
	fail := func(err error) []string {
		note("retention stopped: %v", err)
		return notes
	}
	if ms := l.cfg.RetentionMs; ms >= 0 && l.cfg.Delete {
		for len(l.segs) > 1 && now-l.segs[0].largestTimestamp() > ms {
			s := l.segs[0]
			if err := l.deleteOldest(); err != nil {
				return fail(err)
			}
			note("deleted segment %s: largest timestamp %d is more than retention.ms=%d before %d",
				s.name(), s.largestTimestamp(), ms, now)
		}
	}
	if rb := l.cfg.RetentionBytes; rb >= 0 && l.cfg.Delete {
		diff := l.Size() - rb
		for len(l.segs) > 1 && diff-l.segs[0].size >= 0 {
			s := l.segs[0]
			diff -= s.size
			if err := l.deleteOldest(); err != nil {
				return fail(err)
			}
			note("deleted segment %s (%d bytes): log size exceeds retention.bytes=%d", s.name(), s.size, rb)
		}
	}
	if err := l.deleteBelowStart(note); err != nil {
		return fail(err)
	}
	return notes
}

// TruncateTo removes every batch holding an offset at or above offset, as
// a follower does when its log diverges from the leader's (Kafka's
// UnifiedLog.truncateTo). A batch that straddles offset is removed whole,
// so the new log end may be below offset. If offset is below the first
// segment's base, the log is emptied and restarts at offset.
func (l *Log) TruncateTo(offset int64) error {
	if l.closed {
		return ErrClosed
	}
	if offset < 0 {
		return fmt.Errorf("%w: %s: truncate to %d", ErrOffsetOutOfRange, l.name, offset)
	}
	if offset >= l.EndOffset() {
		return nil
	}
	l.abortClean()
	l.clean.firstDirty = min(l.clean.firstDirty, offset)
	if offset < l.segs[0].base {
		return l.truncateFullyAndStartAt(offset, l.active().created)
	}
	removed := false
	for len(l.segs) > 1 && l.active().base > offset {
		s := l.active()
		_ = s.close()
		if err := removeSegmentFiles(l.st, l.dir, s.base); err != nil {
			return err
		}
		l.segs = l.segs[:len(l.segs)-1]
		removed = true
	}
	if err := l.active().truncateTo(l.hdr[:], offset); err != nil {
		return err
	}
	if old := l.active(); removed && l.cfg.Compact && old.size > 0 {
		// The segment left at the end may have been cleaned, with gaps,
		// and recovery wants the active segment contiguous: seal it and
		// start an empty one (no producer snapshot: the owner's state is
		// about to be reloaded).
		if err := old.seal(); err != nil {
			return err
		}
		seg, err := createSegment(l.st, l.dir, old.next, old.created)
		if err != nil {
			return err
		}
		l.segs = append(l.segs, seg)
	}
	// Snapshots past the new end describe batches that are gone (Kafka's
	// ProducerStateManager.truncateAndReload); the owner reloads its state.
	leo := l.EndOffset()
	if err := l.deleteSnapshots(func(o int64) bool { return o > leo }); err != nil {
		return err
	}
	l.start = min(l.start, l.EndOffset())
	l.recoveryPt = min(l.recoveryPt, l.EndOffset())
	return nil
}

// truncateTo cuts the segment before the first batch whose last offset is
// >= offset and trims the indexes to match (Kafka's LogSegment.truncateTo).
func (s *segment) truncateTo(hdr []byte, offset int64) error {
	pos, ok, err := s.find(hdr, offset)
	if err != nil || !ok {
		return err
	}
	b, _, err := s.readHeader(hdr, pos)
	if err != nil {
		return err
	}
	cut := b.BaseOffset()
	n := 0
	for n < s.ix.Len() && s.ix.Entry(n).Position < pos {
		n++
	}
	m := 0
	for m < s.tix.Len() && s.tix.Entry(m).Offset < cut {
		m++
	}
	if err := s.log.Truncate(pos); err != nil {
		return err
	}
	s.size = pos
	s.ix.buf = s.ix.buf[:n*OffsetEntrySize]
	s.tix.buf = s.tix.buf[:m*TimeEntrySize]
	s.ixSaved, s.tixSaved = min(s.ixSaved, len(s.ix.buf)), min(s.tixSaved, len(s.tix.buf))
	if s.lazyIndexes == nil { // else their first write replaces them
		if err := s.idxF.Truncate(int64(s.ixSaved)); err != nil {
			return err
		}
		if err := s.tidxF.Truncate(int64(s.tixSaved)); err != nil {
			return err
		}
	}
	s.dirty = true
	s.maxTs, s.maxTsOffset = -1, -1
	if why := s.loadTail(nil, 1<<62); why != "" {
		return fmt.Errorf("%w: %s after truncation: %s", ErrCorrupt, s.name(), why)
	}
	if err := s.truncateTxns(s.next); err != nil {
		return err
	}
	if s.size == 0 {
		s.rollStart = -1
	}
	return nil
}

// TruncateFullyAndStartAt empties the log and restarts it at offset, which
// becomes the log start: a follower does this when the leader's log starts
// past the follower's end (Kafka's UnifiedLog.truncateFullyAndStartAt).
func (l *Log) TruncateFullyAndStartAt(offset, now int64) error {
	if l.closed {
		return ErrClosed
	}
	if offset < 0 {
		return fmt.Errorf("%w: %s: start at %d", ErrOffsetOutOfRange, l.name, offset)
	}
	return l.truncateFullyAndStartAt(offset, now)
}
