package log

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/gregor-kafka/gregor/core/store"
)

// Open loads the log in dir, creating it if needed, and recovers it the way
// Kafka's LogLoader does after an unclean shutdown:
//
//   - leftovers of interrupted operations (*.deleted, *.cleaned, *.swap,
//     *.tmp) and index files without a .log are deleted;
//   - every older segment's indexes are sanity-checked (size a multiple of
//     the entry size, entries increasing and inside the log) and the batches
//     after the last index entry are verified up to the end of the file;
//   - a segment failing that, and the last (active) segment unless the
//     previous run closed the log (cfg.CleanShutdown: as Kafka's LogLoader
//     recovers nothing after a clean shutdown, its indexes are trusted as
//     an older segment's are), is
//     scanned batch by batch checking length, magic, CRC and offsets; a torn
//     tail is truncated and the indexes are rebuilt from the scan. If an
//     older segment had to be truncated, the segments after it are deleted
//     (as Kafka does). The active segment must be contiguous from its
//     base; in older ones, which compaction leaves with gaps, offsets need
//     only grow.
//   - a <base>.log.swap (a cleaned segment whose swap was interrupted)
//     replaces <base>.log before anything else (compact_copy.go).
//
// startOffset is the checkpointed log start offset, or -1 if unknown (then
// the first segment's base is used); it is raised to the first segment's
// base, and if it lies beyond the recovered log end every segment is deleted
// and the log restarts empty at startOffset. Each repair is described in
// notes. The log's segments are synced before Open returns, except a
// fresh log's empty one.
func Open(st store.Storage, dir string, cfg Config, startOffset int64, now int64) (*Log, []string, error) {
	clean := cfg.CleanShutdown
	cfg.CleanShutdown = false // of this open only
	_, atSync := st.(store.IndexesAtSync)
	l := &Log{st: st, dir: dir, name: path.Base(dir), cfg: cfg, lastFlushMs: now, txnSuspect: -1, indexesAtSync: atSync}
	names, err := st.List(dir)
	if err != nil {
		return nil, nil, err
	}
	// A directory that lists files exists; only an empty listing (a new
	// partition's, or a missing directory's) needs it made. A restart's
	// 10,000 partitions skip 10,000 stats.
	if len(names) == 0 {
		if err := st.MkdirAll(dir); err != nil {
			return nil, nil, err
		}
	}
	var notes []string
	note := func(format string, args ...any) {
		notes = append(notes, l.name+": "+fmt.Sprintf(format, args...))
	}
	swapped, err := l.completeSwaps(names, note)
	if err != nil {
		return nil, notes, err
	}
	if swapped {
		if names, err = st.List(dir); err != nil {
			return nil, notes, err
		}
	}
	// What the listing holds is what is opened: a partition's directory
	// is listed once, and files it does not hold (most segments have no
	// .txnindex) are not asked for.
	logs, txns := map[int64]bool{}, map[int64]bool{}
	for _, n := range names {
		if b, suf, ok := parseName(n); ok && suf == LogSuffix {
			logs[b] = true
		} else if ok && suf == TxnIndexSuffix {
			txns[b] = true
		}
	}
	for _, n := range names {
		b, suf, ok := parseName(n)
		orphan := ok && (suf == IndexSuffix || suf == TimeIndexSuffix || suf == TxnIndexSuffix) && !logs[b]
		if isStray(n) || orphan {
			if err := st.Remove(path.Join(dir, n)); err != nil && !errors.Is(err, store.ErrNotExist) {
				return nil, notes, err
			}
			if orphan {
				note("deleted %s (no matching .log file)", n)
			} else {
				note("deleted leftover file %s", n)
			}
		}
	}
	bases := make([]int64, 0, len(logs))
	for b := range logs {
		bases = append(bases, b)
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i] < bases[j] })

	fail := func(err error) (*Log, []string, error) {
		for _, s := range l.segs {
			_ = s.close()
		}
		return nil, notes, err
	}
	for i, base := range bases {
		last := i == len(bases)-1
		limit := int64(math.MaxInt64)
		if !last {
			limit = bases[i+1]
		}
		seg, truncated, err := l.loadSegment(base, limit, last, clean, txns[base], now, note)
		if err != nil {
			return fail(err)
		}
		l.segs = append(l.segs, seg)
		if truncated && !last {
			for _, b := range bases[i+1:] {
				if err := removeSegmentFiles(st, dir, b); err != nil {
					return fail(err)
				}
				note("deleted segment %s: it follows a torn batch in %s", FileName(b, LogSuffix), seg.name())
			}
			break
		}
	}
	fresh := len(l.segs) == 0
	if fresh {
		seg, err := createSegment(st, dir, max(startOffset, 0), now)
		if err != nil {
			return fail(err)
		}
		l.segs = append(l.segs, seg)
	}
	l.start = max(startOffset, l.segs[0].base)
	if leo := l.EndOffset(); l.start > leo {
		note("log start offset %d is beyond the log end offset %d: deleting every segment and restarting at %d",
			l.start, leo, l.start)
		if err := l.truncateFullyAndStartAt(l.start, now); err != nil {
			return fail(err)
		}
	}
	if err := l.loadSnapshots(names, note); err != nil {
		return fail(err)
	}
	if err := l.loadCleanerCheckpoint(slices.Contains(names, CleanerCheckpointFile)); err != nil {
		return fail(err)
	}
	// Recovered bytes may still sit only in a page cache; make them durable
	// so the recovery point is honest. After a clean shutdown they were
	// synced when the log closed. A fresh log holds no byte yet: its empty
	// files wait for its first flush or Close, like any new segment's, as
	// a crash that loses them loses no record (Open makes them again, at
	// the start offset the broker checkpointed). So creating 10,000
	// partitions is not 60,000 fsyncs.
	if !clean {
		l.active().dirty = true
	}
	// On a storage whose index entries wait for the segment's sync
	// (store.IndexesAtSync) the entries recovery made wait too, as an
	// append's do, for the segment's next sync (a flush, its roll, the
	// log's close): the active segment's unread index files
	// (openIndexes), and what a lagging index lacks (rebuild). A crash
	// before that leaves the active segment to be scanned again, and
	// 10,000 partitions restart without 20,000 index files to open and
	// write back.
	if !fresh {
		for _, s := range l.segs {
			syncSeg := s.sync
			if atSync {
				syncSeg = s.syncFiles
			}
			if err := syncSeg(); err != nil {
				return fail(err)
			}
		}
	}
	l.recoveryPt = l.EndOffset()
	return l, notes, nil
}

func removeSegmentFiles(st store.Storage, dir string, base int64) error {
	names := segmentNames(dir, base)
	for _, n := range append(names[:], path.Join(dir, FileName(base, TxnIndexSuffix))) {
		if err := st.Remove(n); err != nil && !errors.Is(err, store.ErrNotExist) {
			return err
		}
	}
	return nil
}

// readIndexes opens the two index files (s.idxF, s.tidxF) and reads them
// whole, returning why each one cannot be trusted ("" when it can).
func (s *segment) readIndexes(st store.Storage, limit int64) (ixWhy, tixWhy string, err error) {
	data, ixWhy, err := s.readIndex(st, 1, &s.idxF, OffsetEntrySize)
	if err != nil {
		return "", "", err
	}
	if ixWhy == "" {
		s.ix.buf = data
		if cerr := s.ix.check(s.size, limit); cerr != nil {
			ixWhy = cerr.Error()
		}
	}
	data, tixWhy, err = s.readIndex(st, 2, &s.tidxF, TimeEntrySize)
	if err != nil {
		return "", "", err
	}
	if tixWhy == "" {
		s.tix.buf = data
		if cerr := s.tix.check(limit); cerr != nil {
			tixWhy = cerr.Error()
		}
	}
	return ixWhy, tixWhy, nil
}

// readIndex opens the segment's file names[i], an index of entries of
// size entry, into *fp and reads it whole: one open serves the recovery
// and the appends after it. why says it is missing (*fp stays nil) or of
// a size no entries make.
func (s *segment) readIndex(st store.Storage, i int, fp *store.File, entry int) (data []byte, why string, err error) {
	f, err := st.Open(s.names[i])
	if errors.Is(err, store.ErrNotExist) {
		return nil, "missing", nil
	} else if err != nil {
		return nil, "", err
	}
	*fp = f
	data = make([]byte, f.Size())
	if n, err := f.ReadAt(data, 0); n < len(data) {
		return nil, "", err
	}
	if len(data)%entry != 0 {
		return nil, fmt.Sprintf("size %d is not a multiple of %d", len(data), entry), nil
	}
	return data, "", nil
}

// loadSegment opens one segment, verifying or rebuilding it. The last
// one is scanned whole, unless the previous run closed the log (clean).
// Its .txnindex is read if the directory has one (txn).
func (l *Log) loadSegment(base, limit int64, last, clean, txn bool, now int64, note func(string, ...any)) (*segment, bool, error) {
	s := newSegmentState(l.dir, base, now)
	f, err := l.st.Open(s.names[0])
	if err != nil {
		return nil, false, err
	}
	s.log, s.size = f, f.Size()
	truncated := false
	scan := last && !clean
	// Where index entries wait for the segment's sync, an unclean
	// shutdown leaves the active segment's index files behind its log
	// by design, and the scan rebuilds both from the log, as Kafka's
	// LogSegment.recover does: they are not read, nor opened, until
	// their first write (openIndexes) makes them what the scan found,
	// keeping what they hold of it. A restart of 10,000 partitions opens
	// 10,000 files, not 30,000.
	var ixWhy, tixWhy string
	if scan && l.indexesAtSync {
		s.lazyIndexes = l.st
	} else if ixWhy, tixWhy, err = s.readIndexes(l.st, limit); err != nil {
		_ = s.close()
		return nil, false, err
	}
	s.ixSaved, s.tixSaved = len(s.ix.buf), len(s.tix.buf) // what the files hold; rebuild moves them
	if !scan && ixWhy == "" && tixWhy == "" {
		if why := s.loadTail(l.cfg.Scratch, limit); why != "" {
			ixWhy, tixWhy = "inconsistent with the log: "+why, "inconsistent with the log: "+why
		}
	}
	if scan || ixWhy != "" || tixWhy != "" {
		truncated, err = l.rebuild(s, limit, last, ixWhy, tixWhy, note)
		if err != nil {
			_ = s.close()
			return nil, false, err
		}
	}
	if s.size > 0 {
		s.rollStart = now
	}
	for i, fp := range []*store.File{&s.idxF, &s.tidxF} {
		if *fp != nil || s.lazyIndexes != nil {
			continue // opened by readIndexes and not rewritten since, or left for openIndexes
		}
		if *fp, err = l.st.Open(s.names[i+1]); err != nil {
			_ = s.close()
			return nil, false, err
		}
	}
	if txn {
		if err := l.loadTxnIndex(s, note); err != nil {
			_ = s.close()
			return nil, false, err
		}
	}
	return s, truncated, nil
}

// loadTail trusts the indexes and verifies only the batches after the last
// offset index entry (or all of them if the time index is empty, to learn
// the largest timestamp), setting next, the max timestamp and the index
// byte counter. It returns why the segment cannot be trusted, or "".
func (s *segment) loadTail(scratch *Scratch, limit int64) string {
	from := int64(0)
	lastIx, hasIx := s.ix.last()
	if hasIx {
		from = lastIx.Position
	}
	if lt, ok := s.tix.last(); ok {
		s.maxTs, s.maxTsOffset = lt.Timestamp, lt.Offset
	} else {
		from = 0
	}
	s.bytesSinceIndex = s.size
	if hasIx {
		s.bytesSinceIndex = s.size - lastIx.Position
	}
	s.next = s.base
	sc := newScanner(scratch, s.log, from, s.size, 1<<20, true)
	defer sc.release()
	first := true
	for {
		b, pos, ok := sc.next()
		if !ok {
			break
		}
		if first && hasIx && pos == lastIx.Position && b.LastOffset() != lastIx.Offset {
			return fmt.Sprintf("last index entry says offset %d, batch at position %d ends at %d",
				lastIx.Offset, pos, b.LastOffset())
		}
		if b.BaseOffset() < s.next ||
			b.LastOffset() >= limit || b.BaseOffset() < s.base || !fitsRelative(s.base, b.LastOffset()) {
			return fmt.Sprintf("batch at position %d has offsets %d..%d, out of sequence", pos, b.BaseOffset(), b.LastOffset())
		}
		first = false
		if ts := b.MaxTimestamp(); ts > s.maxTs {
			s.maxTs, s.maxTsOffset = ts, b.LastOffset()
		}
		s.next = b.LastOffset() + 1
	}
	if sc.err != nil {
		return sc.err.Error()
	}
	if sc.torn != "" {
		return fmt.Sprintf("torn batch at position %d: %s", sc.pos, sc.torn)
	}
	if hasIx && s.next <= lastIx.Offset {
		return fmt.Sprintf("no batch at the last index entry's position %d", lastIx.Position)
	}
	return ""
}

// rebuild scans every batch of the segment, truncates a torn tail and
// rewrites the indexes if they differ from what the scan produces.
func (l *Log) rebuild(s *segment, limit int64, last bool, ixWhy, tixWhy string, note func(string, ...any)) (bool, error) {
	oldIx, oldTix := s.ix.buf, s.tix.buf
	if ixWhy != "" {
		oldIx = nil
	}
	if tixWhy != "" {
		oldTix = nil
	}
	s.ix.buf, s.tix.buf = nil, nil
	s.maxTs, s.maxTsOffset, s.bytesSinceIndex, s.next = -1, -1, 0, s.base
	sc := newScanner(l.cfg.Scratch, s.log, 0, s.size, 1<<20, true)
	defer sc.release()
	for {
		b, pos, ok := sc.next()
		if !ok {
			break
		}
		// A batch whose base offset does not follow the previous one (even
		// with a valid CRC, which does not cover the base offset) is
		// garbage. Compaction leaves gaps, but never in the active (last)
		// segment, which must be contiguous from its base; in an older
		// segment offsets need only grow.
		gap := b.BaseOffset() != s.next
		if last && gap || !last && b.BaseOffset() < s.next ||
			b.LastOffset() >= limit || !fitsRelative(s.base, b.LastOffset()) {
			sc.pos = pos
			sc.torn = fmt.Sprintf("offsets %d..%d do not follow %d", b.BaseOffset(), b.LastOffset(), s.next-1)
			break
		}
		s.track(b, pos, l.cfg)
	}
	if sc.err != nil {
		return false, sc.err
	}
	truncated := false
	if sc.pos < s.size {
		note("truncated %d bytes of a torn batch at position %d of %s (%s)", s.size-sc.pos, sc.pos, s.name(), sc.torn)
		if err := s.log.Truncate(sc.pos); err != nil {
			return false, err
		}
		s.size = sc.pos
		s.dirty = true
		truncated = true
	}
	if !last {
		s.maybeAppendTime()
	}
	if s.lazyIndexes != nil {
		s.dirty = true // for the sync that writes them
		return truncated, nil
	}
	type idx struct {
		name      string
		why       string
		old, want []byte
		entry     int
		f         *store.File // open on the file WriteFile replaces
		saved     *int        // how much of want the file holds (saveIndexes)
	}
	var lagging []string
	for _, x := range []idx{
		{s.names[1], ixWhy, oldIx, s.ix.buf, OffsetEntrySize, &s.idxF, &s.ixSaved},
		{s.names[2], tixWhy, oldTix, s.tix.buf, TimeEntrySize, &s.tidxF, &s.tixSaved},
	} {
		if x.why == "" && bytes.Equal(x.old, x.want) {
			continue
		}
		if x.why == "" && *x.f != nil && bytes.HasPrefix(x.want, x.old) {
			// The index lags the log, as a crash between a batch's
			// append and its entries' leaves it: the file holds len(old)
			// of want (*x.saved), and a sync of the segment appends the
			// rest (saveIndexes: Open's own, or on a storage whose
			// entries wait for the sync the segment's next one), where
			// replacing the file would be a rename that ext4 writes back
			// at once (auto_da_alloc). A crash that tears the append
			// leaves what the next open checks. (An active segment's
			// index after an unclean shutdown on such a storage is not
			// read at all: loadSegment.)
			s.dirty = true
			lagging = append(lagging, fmt.Sprintf("%s holds %d of %d", path.Base(x.name), len(x.old)/x.entry, len(x.want)/x.entry))
			continue
		}
		if x.why == "" {
			x.why = fmt.Sprintf("%d entries on storage, %d in the log", len(x.old)/x.entry, len(x.want)/x.entry)
		}
		if *x.f != nil {
			_ = (*x.f).Close() // loadSegment opens the new one
			*x.f = nil
		}
		if err := l.st.WriteFile(x.name, x.want); err != nil {
			return false, err
		}
		*x.saved = len(x.want)
		note("rebuilt %s (%s)", path.Base(x.name), x.why)
	}
	if len(lagging) > 0 {
		note("the indexes lag the log: %s entries; the rest are appended", strings.Join(lagging, ", "))
	}
	return truncated, nil
}

// truncateFullyAndStartAt deletes every segment and starts an empty one at
// offset, which becomes the log start (Kafka's truncateFullyAndStartAt).
func (l *Log) truncateFullyAndStartAt(offset, now int64) error {
	l.abortClean()
	l.clean = cleaner{firstDirty: offset, horizon: -1}
	for _, s := range l.segs {
		_ = s.close()
		if err := removeSegmentFiles(l.st, l.dir, s.base); err != nil {
			return err
		}
	}
	l.segs = nil
	if err := l.deleteSnapshots(func(int64) bool { return true }); err != nil {
		return err
	}
	l.txnSuspect = -1
	seg, err := createSegment(l.st, l.dir, offset, now)
	if err != nil {
		return err
	}
	l.segs = []*segment{seg}
	l.start = offset
	l.recoveryPt = offset
	return nil
}
