package log

import (
	"errors"
	"path"
	"sort"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// Producer state snapshots (Kafka's ProducerStateManager snapshot files)
// live next to the segments as <20-digit offset>.snapshot. The log does not
// read their bytes: its owner installs a Snapshotter, the log asks it for
// the bytes when it rolls a segment (at the new segment's base offset,
// when every batch below is synced) and when it closes (at the log end),
// and drops the files that no longer describe the log: above the log end
// after recovery or truncation, below the first segment after retention,
// all of them when the log restarts empty.

// Snapshotter returns the producer state snapshot that covers every batch
// below offset, or nil to write none.
type Snapshotter func(offset int64) []byte

// SetSnapshotter installs fn; nil removes it.
func (l *Log) SetSnapshotter(fn Snapshotter) { l.snapshotter = fn }

func (l *Log) snapshotName(offset int64) string {
	return path.Join(l.dir, FileName(offset, SnapshotSuffix))
}

// takeSnapshot writes the snapshot at offset, if a Snapshotter is set.
func (l *Log) takeSnapshot(offset int64) error {
	if l.snapshotter == nil {
		return nil
	}
	data := l.snapshotter(offset)
	if data == nil {
		return nil
	}
	if err := l.st.WriteFile(l.snapshotName(offset), data); err != nil {
		return err
	}
	i := sort.Search(len(l.snaps), func(i int) bool { return l.snaps[i] >= offset })
	if i == len(l.snaps) || l.snaps[i] != offset {
		l.snaps = append(l.snaps, 0)
		copy(l.snaps[i+1:], l.snaps[i:])
		l.snaps[i] = offset
	}
	return nil
}

// TakeSnapshot writes a snapshot at the log end now (Kafka takes one at
// every roll and at shutdown; this is for owners that want more).
func (l *Log) TakeSnapshot() error {
	if l.closed {
		return ErrClosed
	}
	return l.takeSnapshot(l.EndOffset())
}

// SnapshotOffsets lists the offsets of the snapshot files, ascending.
func (l *Log) SnapshotOffsets() []int64 { return append([]int64(nil), l.snaps...) }

// ReadSnapshot returns the bytes of the snapshot at offset.
func (l *Log) ReadSnapshot(offset int64) ([]byte, error) {
	return l.st.ReadFile(l.snapshotName(offset))
}

// DeleteSnapshot removes the snapshot at offset (one its owner found
// corrupt).
func (l *Log) DeleteSnapshot(offset int64) error {
	return l.deleteSnapshots(func(o int64) bool { return o == offset })
}

// deleteSnapshots removes every snapshot whose offset matches drop.
func (l *Log) deleteSnapshots(drop func(int64) bool) error {
	kept := l.snaps[:0]
	var firstErr error
	for _, o := range l.snaps {
		if !drop(o) {
			kept = append(kept, o)
			continue
		}
		if err := l.st.Remove(l.snapshotName(o)); err != nil && !errors.Is(err, store.ErrNotExist) && firstErr == nil {
			firstErr = err
		}
	}
	l.snaps = kept
	return firstErr
}

// loadSnapshots finds the snapshot files among names and deletes those
// outside [first segment base, log end].
func (l *Log) loadSnapshots(names []string, note func(string, ...any)) error {
	l.snaps = l.snaps[:0]
	for _, n := range names {
		if o, suf, ok := parseName(n); ok && suf == SnapshotSuffix {
			l.snaps = append(l.snaps, o)
		}
	}
	sort.Slice(l.snaps, func(i, j int) bool { return l.snaps[i] < l.snaps[j] })
	lo, hi := l.segs[0].base, l.EndOffset()
	for _, o := range l.snaps {
		if o < lo || o > hi {
			note("deleted %s: outside the log [%d, %d]", FileName(o, SnapshotSuffix), lo, hi)
		}
	}
	return l.deleteSnapshots(func(o int64) bool { return o < lo || o > hi })
}

// Scan calls fn for every batch whose last offset is >= from, in offset
// order, up to the log end, reading segment after segment. The batch
// aliases a reused buffer: fn must not keep it. It is how the owner
// rebuilds state kept beside the log (producer state, leader epochs, a
// coordinator's groups) after Open. Every batch is checked first (its
// CRC, and offsets that grow inside its segment): state decoded from a
// byte flipped at rest would be wrong with no one to tell, so a damaged
// batch ends the scan with ErrCorrupt instead.
func (l *Log) Scan(from int64, fn func(record.Batch) error) error {
	if l.closed {
		return ErrClosed
	}
	for i := l.segmentFor(from); i < len(l.segs); i++ {
		if s := l.segs[i]; from < s.next {
			if err := s.scan(l.cfg.Scratch, from, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// scan is Scan over one segment. It reads from the offset index entry
// below from, in the scanner's windows, and passes over the batches
// before from, where a walk of their headers (find) would be a pread
// each: a restart replays every partition's producers from a snapshot,
// most of them in the middle of a segment. An entry that does not point
// at the end of a batch (a byte of the .index flipped at rest, which
// Open's checks of order and bounds let pass) makes it scan from the
// segment's start rather than skip records, as find does.
func (s *segment) scan(scratch *Scratch, from int64, fn func(record.Batch) error) error {
	e := s.ix.lookup(from)
	entry := e.Position > 0
	sc := newScanner(scratch, s.log, e.Position, s.size, 1<<20, true)
	defer sc.release()
	after := s.base
	for {
		b, at, ok := sc.next()
		if entry && (!ok || b.LastOffset() != e.Offset) && sc.err == nil {
			sc.pos, sc.torn, entry = 0, "", false
			continue
		}
		entry = false
		if !ok {
			break
		}
		if err := s.inSequence(b, after, at); err != nil {
			return err
		}
		after = b.LastOffset() + 1
		if b.LastOffset() < from {
			continue
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return sc.failure(s)
}
