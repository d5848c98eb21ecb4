package log

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// Log compaction (cleanup.policy=compact) keeps the latest record of every
// key, as Kafka's LogCleaner does (Cleaner, LogCleanerManager,
// SkimpyOffsetMap):
//
//   - The cleanable part of the log is the prefix of whole segments below
//     the owner's bound (the last stable offset, itself below the high
//     watermark), never the active segment, and stopping at the first
//     segment whose largest timestamp is younger than min.compaction.lag.ms
//     (KIP-58). Segments below the first dirty offset (the cleaner's
//     checkpoint) are clean; a pass starts when the dirty share of the
//     cleanable bytes reaches min.cleanable.dirty.ratio, when a delete
//     horizon has passed, or when a dirty segment is older than
//     max.compaction.lag.ms (KIP-354).
//   - A pass first maps every key of the dirty segments to its last offset
//     (by the MD5 of the key, as Kafka does, or by the key itself in the
//     browser: compact_key_js.go; aborted transactional data does not
//     count), then rewrites every cleanable segment from the log
//     start: a record stays if it is the latest of its key; a tombstone
//     (null value) stays until its batch's delete horizon, set to now +
//     delete.retention.ms the first time a pass keeps it (KIP-534).
//   - Aborted transactional data is dropped (the .txnindex says which); a
//     transaction marker goes once no data of its transaction is left and
//     its delete horizon has passed; each producer's last data batch is
//     kept, empty if need be, so its sequence and epoch survive a restart.
//   - Batches keep their offsets (base offset and last offset delta), so
//     offsets now have gaps; a batch that loses nothing is copied as it
//     was, one that loses records is re-encoded uncompressed.
//   - Work is bounded: each Clean call reads at most a budget of bytes, so
//     the one goroutine that runs the engine never stalls on a big log.
//   - On storage a cleaned segment is written to <base>.log.cleaned,
//     synced and renamed to <base>.log.swap (the commit point), then the
//     old segment's files are replaced. Open finishes a .swap (renames it
//     over the .log, rebuilds the indexes, and has the owner rebuild the
//     .txnindex) and deletes a .cleaned. Segments are cleaned one at a
//     time and not merged (Kafka groups small segments); a segment left
//     empty is deleted, except the first, so that compaction never moves
//     the log start offset.
//
// The first dirty offset and the earliest pending delete horizon are kept
// in <dir>/cleaner-offset-checkpoint (Kafka keeps one such file per log
// directory).

// CleanerCheckpointFile is the name of a partition's cleaner checkpoint.
const CleanerCheckpointFile = "cleaner-offset-checkpoint"

const (
	cleanedSuffix = ".cleaned"
	swapSuffix    = ".swap"
)

// CleanContext is what the owner tells the cleaner about the partition.
type CleanContext struct {
	Now int64
	// UpTo bounds cleaning: no batch at or above it is touched (the last
	// stable offset, which is at most the high watermark).
	UpTo int64
	// ProducerLast returns the last offset of a producer's last data
	// batch, if the owner still tracks the producer; that batch is kept.
	ProducerLast func(producerID int64) (int64, bool)
	// Force starts a pass whatever the dirty ratio (a lesson's `compact`).
	Force bool
	// MaxKeys bounds the offset map (from log.cleaner.dedupe.buffer.size);
	// a pass maps whole dirty segments until it holds that many keys.
	MaxKeys int
}

// cleaner is a log's compaction state.
type cleaner struct {
	firstDirty int64 // segments whose next offset is at or below are clean
	horizon    int64 // earliest pending delete horizon of a kept batch, -1 if none
	pass       *cleanPass
}

// cleanPass is a pass in progress.
type cleanPass struct {
	end    int64 // first offset not cleaned: a segment base
	mapped bool  // the offset map is complete; copying
	keys   map[offsetKey]int64
	// cursor: the segment being read (by base) and the position in it
	segBase int64
	pos     int64
	after   int64        // the offset after the last batch read in that segment
	aborted []AbortedTxn // of the cleanable range, in marker order
	txn     txnTracker
	out     *segment // the .cleaned segment being written
	horizon int64    // earliest horizon among the batches written so far
	stats   cleanStats
}

type cleanStats struct {
	segments, read, written, dropped int64
}

func isNotExist(err error) bool { return errors.Is(err, store.ErrNotExist) }

func (l *Log) checkpointName() string { return path.Join(l.dir, CleanerCheckpointFile) }

// loadCleanerCheckpoint reads the first dirty offset and pending horizon,
// if the log's directory has a checkpoint (listed).
func (l *Log) loadCleanerCheckpoint(listed bool) error {
	l.clean = cleaner{firstDirty: l.start, horizon: -1}
	if !listed {
		return nil
	}
	data, err := l.st.ReadFile(l.checkpointName())
	if errors.Is(err, store.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	f := strings.Fields(string(data))
	if len(f) == 2 {
		d, err1 := strconv.ParseInt(f[0], 10, 64)
		h, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 == nil && err2 == nil {
			l.clean.firstDirty, l.clean.horizon = min(max(d, l.start), l.EndOffset()), h
		}
	}
	return nil
}

func (l *Log) saveCleanerCheckpoint() error {
	return l.st.WriteFile(l.checkpointName(), fmt.Appendf(nil, "%d %d\n", l.clean.firstDirty, l.clean.horizon))
}

// FirstDirtyOffset is the cleaner's checkpoint: the offset from which the
// log has not been compacted yet.
func (l *Log) FirstDirtyOffset() int64 { return max(l.clean.firstDirty, l.start) }

// Cleaning reports whether a pass is in progress.
func (l *Log) Cleaning() bool { return l.clean.pass != nil }

// cleanableEnd is the base of the first segment that cannot be cleaned
// now, and how many segments lie below it.
func (l *Log) cleanableEnd(ctx CleanContext) (int64, int) {
	for i, s := range l.segs {
		if i == len(l.segs)-1 || s.next > ctx.UpTo || ctx.Now-s.largestTimestamp() < l.cfg.MinCompactionLagMs {
			return s.base, i
		}
	}
	panic("unreachable: the active segment always ends the cleanable range")
}

// DirtyRatio is the share of the cleanable bytes that are dirty, with the
// cleanable and dirty byte counts (LogCleanerManager's cleanableRatio).
func (l *Log) DirtyRatio(ctx CleanContext) (ratio float64, cleanable, dirty int64) {
	_, n := l.cleanableEnd(ctx)
	first := l.FirstDirtyOffset()
	for _, s := range l.segs[:n] {
		cleanable += s.size
		if s.next > first {
			dirty += s.size
		}
	}
	if cleanable == 0 {
		return 0, 0, 0
	}
	return float64(dirty) / float64(cleanable), cleanable, dirty
}

// Clean does at most budget bytes of compaction work: it starts a pass if
// one is due, then maps or copies batches. It returns one note per
// finished pass or repair; an error stops the pass (its .cleaned file is
// removed) and leaves the log as it was, except for segments already
// swapped, which are whole.
func (l *Log) Clean(ctx CleanContext, budget int64) ([]string, error) {
	if l.closed || !l.cfg.Compact {
		return nil, nil
	}
	if l.clean.pass == nil && !l.startPass(ctx) {
		return nil, nil
	}
	var notes []string
	for budget > 0 && l.clean.pass != nil {
		var used int64
		var err error
		if !l.clean.pass.mapped {
			used, err = l.mapStep(ctx, budget)
		} else {
			var note string
			used, note, err = l.copyStep(ctx, budget)
			if note != "" {
				notes = append(notes, l.name+": "+note)
			}
		}
		if err != nil {
			l.abortClean()
			return notes, err
		}
		budget -= max(used, 1)
	}
	return notes, nil
}

// startPass begins a pass if the log has cleanable segments and is due.
func (l *Log) startPass(ctx CleanContext) bool {
	end, n := l.cleanableEnd(ctx)
	if n == 0 {
		return false
	}
	ratio, _, dirty := l.DirtyRatio(ctx)
	due := ctx.Force || (dirty > 0 && ratio >= l.cfg.MinCleanableDirtyRatio) ||
		(l.clean.horizon >= 0 && ctx.Now >= l.clean.horizon) || l.maxLagPassed(ctx, n)
	if !due {
		return false
	}
	p := &cleanPass{end: end, keys: map[offsetKey]int64{}, horizon: -1}
	p.aborted = l.AbortedTxns(l.segs[0].base, end)
	// The map covers the dirty segments; start at the first of them.
	p.segBase = end
	first := l.FirstDirtyOffset()
	for _, s := range l.segs[:n] {
		if s.next > first {
			p.segBase = s.base
			break
		}
	}
	if p.segBase == end {
		p.mapped = true // nothing dirty: a pass for a delete horizon
		p.segBase = l.segs[0].base
	}
	p.txn = newTxnTracker(p.aborted)
	l.clean.pass = p
	return true
}

// maxLagPassed reports whether a cleanable dirty segment got its first
// batch more than max.compaction.lag.ms ago (KIP-354; by the append clock,
// as segment.ms: a segment loaded at start counts from then).
func (l *Log) maxLagPassed(ctx CleanContext, n int) bool {
	first := l.FirstDirtyOffset()
	for _, s := range l.segs[:n] {
		if s.next > first && s.rollStart >= 0 && ctx.Now-s.rollStart > l.cfg.MaxCompactionLagMs {
			return true
		}
	}
	return false
}

// segAt finds the segment with base offset base.
func (l *Log) segAt(base int64) (int, bool) {
	i := l.segmentFor(base)
	return i, i < len(l.segs) && l.segs[i].base == base
}

// stepSegment reads the batches of the segment at the pass's cursor, up
// to budget bytes, calling fn for each, and moves the cursor on; done
// reports that the segment was read to its end. Every batch is checked
// against its CRC first: the cleaner decodes what it reads and writes the
// records it keeps under a fresh CRC, so a byte flipped at rest would
// otherwise come out as a valid record; and its offsets, which the CRC
// does not cover, must grow inside the segment. A damaged batch stops the pass
// with ErrCorrupt (the broker leaves the partition uncleaned, as Kafka's
// cleaner marks it uncleanable, KIP-346).
func (l *Log) stepSegment(budget int64, fn func(*segment, record.Batch) error) (i int, used int64, done bool, err error) {
	p := l.clean.pass
	i, ok := l.segAt(p.segBase)
	if !ok {
		return 0, 0, false, fmt.Errorf("%w: %s: segment %d went away during cleaning", ErrCorrupt, l.name, p.segBase)
	}
	s := l.segs[i]
	if p.pos == 0 {
		p.after = s.base
	}
	sc := newScanner(l.cfg.Scratch, s.log, p.pos, s.size, int(min(budget, 1<<20)), true)
	defer sc.release()
	for used < budget {
		b, pos, more := sc.next()
		if !more {
			break
		}
		if err := s.inSequence(b, p.after, pos); err != nil {
			return i, used, false, err
		}
		p.after = b.LastOffset() + 1
		used += int64(b.Size())
		if err := fn(s, b); err != nil {
			return i, used, false, err
		}
	}
	if err := sc.failure(s); err != nil {
		return i, used, false, err
	}
	p.pos = sc.pos
	return i, used, p.pos >= s.size, nil
}

// mapStep adds the keys of up to budget bytes of dirty batches to the map.
func (l *Log) mapStep(ctx CleanContext, budget int64) (int64, error) {
	p := l.clean.pass
	i, used, done, err := l.stepSegment(budget, func(s *segment, b record.Batch) error {
		if b.IsControl() || isAbortedData(p.aborted, b) {
			return nil
		}
		recs, err := b.Records()
		if err != nil {
			return fmt.Errorf("%w: %s: batch at offset %d: %w", ErrCorrupt, s.name(), b.BaseOffset(), err)
		}
		for _, r := range recs {
			if r.Key != nil {
				p.keys[keyHash(r.Key)] = b.BaseOffset() + int64(r.OffsetDelta)
			}
		}
		return nil
	})
	if err != nil || !done {
		return used, err
	}
	// Segment mapped: go on with the next dirty one unless the map is
	// full (then this pass cleans up to here) or the range ends.
	p.pos = 0
	next := p.end
	if i+1 < len(l.segs) {
		next = l.segs[i+1].base
	}
	if next >= p.end || (ctx.MaxKeys > 0 && len(p.keys) >= ctx.MaxKeys) {
		p.end = next
		p.mapped = true
		p.segBase = l.segs[0].base
		return used, nil
	}
	p.segBase = next
	return used, nil
}

// isAbortedData reports whether b is transactional data of an aborted
// transaction listed in aborted.
func isAbortedData(aborted []AbortedTxn, b record.Batch) bool {
	if !b.IsTransactional() || b.IsControl() {
		return false
	}
	for _, a := range aborted {
		if a.ProducerID == b.ProducerID() && a.FirstOffset <= b.BaseOffset() && b.BaseOffset() <= a.LastOffset {
			return true
		}
	}
	return false
}

// abortClean drops a pass in progress and its .cleaned file. Every
// operation that removes or truncates segments calls it first.
func (l *Log) abortClean() {
	p := l.clean.pass
	if p == nil {
		return
	}
	l.clean.pass = nil
	if p.out != nil && p.out.log != nil {
		_ = p.out.log.Close()
		_ = l.st.Remove(p.out.names[0] + cleanedSuffix)
	}
}
