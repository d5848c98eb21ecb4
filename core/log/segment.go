package log

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// segment is one .log file with its .index and .timeindex (Kafka's
// LogSegment).
type segment struct {
	base  int64
	names [3]string // log, index, timeindex paths
	log   store.File
	idxF  store.File
	tidxF store.File
	txnF  store.File   // the .txnindex, nil until it has an entry
	txns  []AbortedTxn // its entries, by marker offset
	ix    OffsetIndex
	tix   TimeIndex
	// ixSaved and tixSaved are how many bytes of ix.buf and tix.buf the
	// .index and .timeindex files hold. Entries are made in memory on
	// append and written to the files at once, or, on a storage that
	// asks for it (store.IndexesAtSync), at the segment's next sync (a
	// flush, its roll, the log's close). What a kill -9 then leaves
	// unwritten is the active segment's, whose indexes recovery rebuilds
	// from the log after an unclean shutdown (Open); an older segment's
	// were written when it rolled (seal).
	ixSaved, tixSaved int
	// lazyIndexes is the storage to open the .index and .timeindex from
	// at their first write, nil once they are open. Recovery leaves them
	// so on a storage whose entries wait for the sync (Open): it rebuilt
	// both from the log without reading them, and that first write
	// compares and completes them (openIndexes).
	lazyIndexes store.Storage

	size int64 // == log.Size()
	next int64 // offset after the last batch; base when empty

	bytesSinceIndex int64 // bytes appended since the last offset index entry
	maxTs           int64 // largest batch max timestamp, -1 if none
	maxTsOffset     int64 // last offset of the batch that has maxTs, -1 if none
	rollStart       int64 // append time of the first batch (segment.ms), -1 if empty
	created         int64 // creation or load time; stands in for a file's mtime
	dirty           bool  // some file changed since the last Sync
}

func segmentNames(dir string, base int64) [3]string {
	return [3]string{
		path.Join(dir, FileName(base, LogSuffix)),
		path.Join(dir, FileName(base, IndexSuffix)),
		path.Join(dir, FileName(base, TimeIndexSuffix)),
	}
}

func newSegmentState(dir string, base, now int64) *segment {
	return &segment{
		base: base, names: segmentNames(dir, base), next: base,
		ix: OffsetIndex{base: base}, tix: TimeIndex{base: base},
		maxTs: -1, maxTsOffset: -1, rollStart: -1, created: now,
	}
}

// createFresh creates name, replacing a leftover file of the same name.
func createFresh(st store.Storage, name string) (store.File, error) {
	f, err := st.Create(name)
	if errors.Is(err, store.ErrExist) {
		if err := st.Remove(name); err != nil {
			return nil, err
		}
		f, err = st.Create(name)
	}
	return f, err
}

// createSegment makes the three empty files of a new segment.
func createSegment(st store.Storage, dir string, base, now int64) (*segment, error) {
	s := newSegmentState(dir, base, now)
	files := []*store.File{&s.log, &s.idxF, &s.tidxF}
	for i, name := range s.names {
		f, err := createFresh(st, name)
		if err != nil {
			s.close()
			return nil, err
		}
		*files[i] = f
	}
	s.dirty = true
	return s, nil
}

func (s *segment) close() error {
	var first error
	for _, f := range []store.File{s.log, s.idxF, s.tidxF, s.txnF} {
		if f != nil {
			if err := f.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	s.log, s.idxF, s.tidxF, s.txnF = nil, nil, nil, nil
	return first
}

func (s *segment) sync() error {
	if !s.dirty {
		return nil
	}
	if err := s.saveIndexes(); err != nil {
		return err
	}
	return s.syncFiles()
}

// syncFiles syncs the segment's files as they are, without writing the
// index entries that wait for a sync: the segment stays dirty while any
// do, for its next sync to write them.
func (s *segment) syncFiles() error {
	if !s.dirty {
		return nil
	}
	for _, f := range []store.File{s.log, s.idxF, s.tidxF, s.txnF} {
		if f == nil {
			continue
		}
		if err := f.Sync(); err != nil {
			return err
		}
	}
	s.dirty = s.lazyIndexes != nil || s.ixSaved < len(s.ix.buf) || s.tixSaved < len(s.tix.buf)
	return nil
}

// saveIndexes appends to the index files the entries added since they
// were last written.
func (s *segment) saveIndexes() error {
	if err := s.openIndexes(); err != nil {
		return err
	}
	if s.ixSaved < len(s.ix.buf) {
		if err := s.idxF.Append(s.ix.buf[s.ixSaved:]); err != nil {
			return err
		}
		s.ixSaved = len(s.ix.buf)
	}
	if s.tixSaved < len(s.tix.buf) {
		if err := s.tidxF.Append(s.tix.buf[s.tixSaved:]); err != nil {
			return err
		}
		s.tixSaved = len(s.tix.buf)
	}
	return nil
}

// openIndexes opens the index files recovery left unread (lazyIndexes)
// and keeps of each what agrees with the entries rebuilt in memory: the
// longest common prefix, in whole entries, counts as written and the
// rest is cut, for saveIndexes to append what follows. After a kill -9
// that is the whole file, which lags the log; one that disagrees from its
// first entry is emptied. A crash before the segment's next sync leaves
// it short, and the segment, still the active one, is scanned again.
func (s *segment) openIndexes() error {
	st := s.lazyIndexes
	if st == nil {
		return nil
	}
	for i, x := range []struct {
		f     *store.File
		want  []byte
		entry int
		saved *int
	}{
		{&s.idxF, s.ix.buf, OffsetEntrySize, &s.ixSaved},
		{&s.tidxF, s.tix.buf, TimeEntrySize, &s.tixSaved},
	} {
		// Nil, unless an earlier call failed on the other file.
		if *x.f != nil {
			_ = (*x.f).Close()
			*x.f = nil
		}
		have, _, err := s.readIndex(st, i+1, x.f, x.entry) // nil if missing or of a broken size
		if err != nil {
			return err
		}
		if *x.f == nil {
			if *x.f, err = st.Create(s.names[i+1]); err != nil {
				return err
			}
		}
		keep := 0
		for keep < min(len(have), len(x.want)) && have[keep] == x.want[keep] {
			keep++
		}
		keep -= keep % x.entry
		if int64(keep) < (*x.f).Size() {
			if err := (*x.f).Truncate(int64(keep)); err != nil {
				return err
			}
		}
		*x.saved = keep
	}
	s.lazyIndexes = nil
	return nil
}

func (s *segment) name() string { return path.Base(s.names[0]) }

// largestTimestamp is what time-based retention compares (Kafka's
// LogSegment.largestTimestamp): the largest batch timestamp, or, when no
// batch carries one, the time the segment was created or loaded (Kafka
// falls back to the file's modification time).
func (s *segment) largestTimestamp() int64 {
	if s.maxTs >= 0 {
		return s.maxTs
	}
	return s.created
}

// indexFull reports whether either index has reached segment.index.bytes.
func (s *segment) indexFull(cfg Config) bool {
	return int64(s.ix.Len()) >= cfg.SegmentIndexBytes/OffsetEntrySize ||
		int64(s.tix.Len()) >= cfg.SegmentIndexBytes/TimeEntrySize
}

// track applies Kafka's LogSegment.append bookkeeping for one batch at
// position pos: first the running max timestamp; then, if more than
// index.interval.bytes were appended since the last entry, an offset index
// entry (batch last offset, batch position) and a time index entry (max
// timestamp so far) if it grew; then the byte counter. It only touches the
// in-memory indexes; sync writes them out.
func (s *segment) track(b record.Batch, pos int64, cfg Config) {
	last := b.LastOffset()
	if ts := b.MaxTimestamp(); ts > s.maxTs {
		s.maxTs, s.maxTsOffset = ts, last
	}
	if s.bytesSinceIndex > cfg.IndexIntervalBytes {
		if int64(s.ix.Len()) < cfg.SegmentIndexBytes/OffsetEntrySize {
			s.ix.buf = appendOffsetEntry(s.ix.buf, s.base, IndexEntry{Offset: last, Position: pos})
		}
		if int64(s.tix.Len()) < cfg.SegmentIndexBytes/TimeEntrySize {
			s.maybeAppendTime()
		}
		s.bytesSinceIndex = 0
	}
	s.bytesSinceIndex += int64(b.Size())
	s.next = last + 1
}

// maybeAppendTime adds (maxTs, maxTsOffset) to the in-memory time index if
// the timestamp is larger than the last entry's (Kafka's
// TimeIndex.maybeAppend).
func (s *segment) maybeAppendTime() bool {
	if s.maxTsOffset < 0 {
		return false
	}
	if last, ok := s.tix.last(); ok && s.maxTs <= last.Timestamp {
		return false
	} else if !ok && s.maxTs <= -1 {
		return false
	}
	s.tix.buf = appendTimeEntry(s.tix.buf, s.base, TimeIndexEntry{Timestamp: s.maxTs, Offset: s.maxTsOffset})
	return true
}

// append writes a batch whose base offset is already stamped, and the
// index entries it makes unless they wait for the next sync (atSync).
func (s *segment) append(b record.Batch, cfg Config, now int64, atSync bool) error {
	pos := s.size
	if err := s.log.Append(b); err != nil {
		// Do not leave half a batch behind; recovery would cut it anyway.
		if s.log.Size() != pos {
			_ = s.log.Truncate(pos)
		}
		return err
	}
	s.size += int64(len(b))
	s.dirty = true
	if s.rollStart < 0 {
		s.rollStart = now
	}
	s.track(b, pos, cfg)
	if atSync {
		return nil
	}
	return s.saveIndexes()
}

// seal runs when the segment stops being the active one (Kafka's
// onBecomeInactiveSegment): the time index gets a final entry holding the
// segment's largest timestamp, so it can be found after a restart without
// scanning, and the files are synced with every index entry written.
func (s *segment) seal() error {
	if s.maybeAppendTime() {
		s.dirty = true
	}
	return s.sync()
}

// readHeader reads the batch header at pos into hdr.
func (s *segment) readHeader(hdr []byte, pos int64) (record.Batch, int, error) {
	if pos+record.HeaderSize > s.size {
		return nil, 0, fmt.Errorf("%w: %s: %d bytes at position %d cannot hold a batch header",
			ErrCorrupt, s.name(), s.size-pos, pos)
	}
	if _, err := s.log.ReadAt(hdr[:record.HeaderSize], pos); err != nil {
		return nil, 0, err
	}
	return s.checkHeader(hdr, pos)
}

// checkHeader checks the batch header in hdr, read at pos: it is a
// batch's, and the batch ends within the segment.
func (s *segment) checkHeader(hdr []byte, pos int64) (record.Batch, int, error) {
	n, err := record.Peek(hdr)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %s at position %d: %w", ErrCorrupt, s.name(), pos, err)
	}
	if pos+int64(n) > s.size {
		return nil, 0, fmt.Errorf("%w: %s: batch at position %d of %d bytes runs past the end (%d)",
			ErrCorrupt, s.name(), pos, n, s.size)
	}
	return record.Batch(hdr), n, nil
}

// find returns the position of the first batch whose last offset is >=
// offset (Kafka's LogSegment.translateOffset): the offset index narrows the
// start, then batch headers are read forward.
func (s *segment) find(hdr []byte, offset int64) (int64, bool, error) {
	e := s.ix.lookup(offset)
	pos, entry := e.Position, e.Position > 0
	after := s.base
	for pos < s.size {
		b, n, err := s.readHeader(hdr, pos)
		if entry && (err != nil || b.LastOffset() != e.Offset) {
			// The entry does not point at its batch: a byte of the
			// .index flipped at rest, which the checks at Open let
			// pass (they see order and bounds, not every entry). Scan
			// from the segment's start rather than skip records.
			pos, entry = 0, false
			continue
		}
		entry = false
		if err != nil {
			return 0, false, err
		}
		if err := s.inSequence(b, after, pos); err != nil {
			return 0, false, err
		}
		after = b.LastOffset() + 1
		if b.LastOffset() >= offset {
			return pos, true, nil
		}
		pos += int64(n)
	}
	return 0, false, nil
}

// inSequence checks the offsets of the batch at pos, which follows a batch
// ending before after: they must lie in the segment and grow. The CRC
// does not cover a batch's base offset, so a byte flipped there at rest
// would otherwise move the batch's records to other offsets, unseen by
// the consumer's CRC check; the broker refuses it (ErrCorrupt, which a
// Fetch answers with KAFKA_STORAGE_ERROR).
func (s *segment) inSequence(b record.Batch, after, pos int64) error {
	if b.BaseOffset() < after || b.LastOffset() >= s.next {
		return fmt.Errorf("%w: %s: batch at position %d has offsets %d..%d, out of sequence in %d..%d",
			ErrCorrupt, s.name(), pos, b.BaseOffset(), b.LastOffset(), after, s.next-1)
	}
	return nil
}

// scanner walks the batches of a segment file through a reused buffer.
type scanner struct {
	f      store.File
	size   int64
	pos    int64 // position of the next batch
	buf    []byte
	bufPos int64
	chunk  int
	verify bool
	torn   string // why scanning stopped before size, if it did
	err    error  // an I/O error
	// scratch lends buf and takes it back at release.
	scratch *Scratch
}

func newScanner(scratch *Scratch, f store.File, from, size int64, chunk int, verify bool) *scanner {
	return &scanner{f: f, pos: from, size: size, chunk: chunk, verify: verify, bufPos: -1, buf: scratch.take(), scratch: scratch}
}

// release lends the scanner's buffer back to its Scratch; the batches it
// returned are not to be read after it.
func (sc *scanner) release() {
	sc.scratch.give(sc.buf)
	sc.buf, sc.bufPos = nil, -1
}

// Scratch holds read buffers that the logs of one engine lend their
// scans in turn, as one goroutine drives them all: a restart after an
// unclean shutdown scans each partition's active segment and replays its
// producers (Scan), 20,000 scans for 10,000 partitions, each of which
// would otherwise allocate and clear a buffer the size of what it reads.
// A scan inside another's callback takes a buffer of its own. The zero
// value is ready; a nil *Scratch lends nothing.
type Scratch struct{ free [][]byte }

// scratchKept bounds the buffers a Scratch keeps, each up to a scan's
// chunk (1 MiB): scans nest only a few deep.
const scratchKept = 4

func (s *Scratch) take() []byte {
	if s == nil || len(s.free) == 0 {
		return nil
	}
	b := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	return b[:0]
}

func (s *Scratch) give(b []byte) {
	if s != nil && cap(b) > 0 && len(s.free) < scratchKept {
		s.free = append(s.free, b[:0])
	}
}

func (sc *scanner) view(pos int64, n int) ([]byte, error) {
	if sc.bufPos >= 0 && pos >= sc.bufPos && pos+int64(n) <= sc.bufPos+int64(len(sc.buf)) {
		return sc.buf[pos-sc.bufPos : pos-sc.bufPos+int64(n)], nil
	}
	want := int64(max(n, sc.chunk))
	want = min(want, sc.size-pos)
	if cap(sc.buf) < int(want) {
		sc.buf = make([]byte, want)
	}
	sc.buf = sc.buf[:want]
	if _, err := sc.f.ReadAt(sc.buf, pos); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	sc.bufPos = pos
	return sc.buf[:n], nil
}

// next returns the next batch and its position. It returns false at the
// end of the file, on a torn batch (torn says why) or on an I/O error.
func (sc *scanner) next() (record.Batch, int64, bool) {
	if sc.pos >= sc.size {
		return nil, sc.pos, false
	}
	if sc.size-sc.pos < record.HeaderSize {
		sc.torn = fmt.Sprintf("%d bytes cannot hold a batch header", sc.size-sc.pos)
		return nil, sc.pos, false
	}
	hdr, err := sc.view(sc.pos, record.HeaderSize)
	if err != nil {
		sc.err = err
		return nil, sc.pos, false
	}
	n, err := record.Peek(hdr)
	if err != nil {
		sc.torn = err.Error()
		return nil, sc.pos, false
	}
	if int64(n) > sc.size-sc.pos {
		sc.torn = fmt.Sprintf("batch of %d bytes but only %d left", n, sc.size-sc.pos)
		return nil, sc.pos, false
	}
	p, err := sc.view(sc.pos, n)
	if err != nil {
		sc.err = err
		return nil, sc.pos, false
	}
	if sc.verify {
		if err := record.ValidateStored(p); err != nil {
			sc.torn = err.Error()
			return nil, sc.pos, false
		}
	}
	pos := sc.pos
	sc.pos += int64(n)
	return record.Batch(p), pos, true
}

// failure is why a scan of s stopped before its end: an I/O error, or a
// torn batch as ErrCorrupt; nil when it reached the end.
func (sc *scanner) failure(s *segment) error {
	if sc.err != nil {
		return sc.err
	}
	if sc.torn != "" {
		return fmt.Errorf("%w: %s at position %d: %s", ErrCorrupt, s.name(), sc.pos, sc.torn)
	}
	return nil
}

// fitsRelative reports whether a batch ending at last can live in a
// segment based at base: index entries store offsets as uint32 deltas.
func fitsRelative(base, last int64) bool { return last-base >= 0 && last-base <= math.MaxUint32 }
