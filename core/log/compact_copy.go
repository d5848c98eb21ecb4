package log

import (
	"encoding/binary"
	"fmt"
	"path"

	"github.com/gregor-kafka/gregor/core/record"
)

// txnTracker follows transactions through a pass in offset order, as
// Kafka's CleanedTransactionMetadata does: aborted transactions (from the
// .txnindex) become ongoing when the pass reaches their first offset; a
// transactional batch of an ongoing aborted transaction is dropped; a
// marker may go once the pass met no data of its transaction.
type txnTracker struct {
	aborted   []AbortedTxn // not yet reached, by first offset
	abortedOn map[int64]bool
	// seenAborted: the pass met (and dropped) data of the producer's
	// ongoing aborted transaction; its marker stays one more pass.
	seenAborted map[int64]bool
	committed   map[int64]bool // producers with data in an ongoing committed transaction
}

func newTxnTracker(aborted []AbortedTxn) txnTracker {
	sorted := append([]AbortedTxn(nil), aborted...)
	for i := 1; i < len(sorted); i++ { // insertion sort: the list is nearly sorted
		for j := i; j > 0 && sorted[j].FirstOffset < sorted[j-1].FirstOffset; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	return txnTracker{aborted: sorted, abortedOn: map[int64]bool{}, seenAborted: map[int64]bool{}, committed: map[int64]bool{}}
}

func (t *txnTracker) reach(offset int64) {
	for len(t.aborted) > 0 && t.aborted[0].FirstOffset <= offset {
		t.abortedOn[t.aborted[0].ProducerID] = true
		t.aborted = t.aborted[1:]
	}
}

// onData reports whether a data batch belongs to an aborted transaction.
func (t *txnTracker) onData(b record.Batch) bool {
	t.reach(b.LastOffset())
	if !b.IsTransactional() {
		return false
	}
	pid := b.ProducerID()
	if t.abortedOn[pid] {
		t.seenAborted[pid] = true
		return true
	}
	t.committed[pid] = true
	return false
}

// onMarker reports whether a marker may be removed (once its horizon
// passes): no data of its transaction was met in this pass.
func (t *txnTracker) onMarker(b record.Batch, abort bool) bool {
	t.reach(b.LastOffset())
	pid := b.ProducerID()
	if abort {
		seen := t.seenAborted[pid]
		delete(t.abortedOn, pid)
		delete(t.seenAborted, pid)
		return !seen
	}
	had := t.committed[pid]
	delete(t.committed, pid)
	return !had
}

// markerIsAbort decodes a control batch's record key (version int16,
// type int16: 0 abort, 1 commit); ok is false for other control records.
func markerIsAbort(recs []record.Record) (abort, ok bool) {
	if len(recs) != 1 || len(recs[0].Key) < 4 {
		return false, false
	}
	switch binary.BigEndian.Uint16(recs[0].Key[2:]) {
	case 0:
		return true, true
	case 1:
		return false, true
	}
	return false, false
}

// copyStep rewrites up to budget bytes of the segment at the cursor into
// its .cleaned file, swapping it in when the segment is done.
func (l *Log) copyStep(ctx CleanContext, budget int64) (int64, string, error) {
	p := l.clean.pass
	if p.segBase >= p.end {
		return 0, l.finishPass(), nil
	}
	i, used, done, err := l.stepSegment(budget, func(s *segment, b record.Batch) error {
		if p.out == nil {
			out := newSegmentState(l.dir, s.base, s.created)
			f, err := createFresh(l.st, out.names[0]+cleanedSuffix)
			if err != nil {
				return err
			}
			out.log = f
			p.out = out
			p.stats.segments++
		}
		return l.copyBatch(ctx, b)
	})
	if err != nil || !done {
		return used, "", err
	}
	next := p.end
	if i+1 < len(l.segs) {
		next = l.segs[i+1].base
	}
	// An empty segment (the first, emptied by an earlier pass) stays as it is.
	if p.out != nil {
		if err := l.swapIn(i, p.out); err != nil {
			return used, "", err
		}
	}
	p.out, p.pos, p.segBase = nil, 0, next
	if next >= p.end {
		return used, l.finishPass(), nil
	}
	return used, "", nil
}

// copyBatch decides what stays of one batch and writes it to the output.
func (l *Log) copyBatch(ctx CleanContext, b record.Batch) error {
	p := l.clean.pass
	p.stats.read += int64(b.Size())
	recs, err := b.Records()
	if err != nil {
		return fmt.Errorf("%w: %s: batch at offset %d: %w", ErrCorrupt, l.name, b.BaseOffset(), err)
	}
	horizon, hasHorizon := b.DeleteHorizon()
	pastHorizon := hasHorizon && ctx.Now >= horizon
	var discard, needHorizon bool
	if b.IsControl() {
		if abort, ok := markerIsAbort(recs); ok {
			canDiscard := p.txn.onMarker(b, abort)
			discard = canDiscard && pastHorizon
			needHorizon = canDiscard && !discard
		}
	} else {
		discard = p.txn.onData(b)
	}
	isLast := false
	if pid := b.ProducerID(); pid >= 0 && !b.IsControl() && ctx.ProducerLast != nil {
		last, ok := ctx.ProducerLast(pid)
		isLast = ok && last == b.LastOffset()
	}
	var kept []record.Record
	switch {
	case discard:
	case b.IsControl():
		kept = recs
	default:
		for _, r := range recs {
			if r.Key == nil {
				continue // a compacted topic keeps no record without a key
			}
			if latest, ok := p.keys[keyHash(r.Key)]; ok && b.BaseOffset()+int64(r.OffsetDelta) < latest {
				continue
			}
			if r.Value == nil {
				if pastHorizon {
					continue
				}
				needHorizon = true
			}
			kept = append(kept, r)
		}
	}
	p.stats.dropped += int64(len(recs) - len(kept))
	if len(kept) == 0 && !isLast {
		return nil
	}
	newHorizon := int64(-1)
	if needHorizon {
		if hasHorizon {
			newHorizon = horizon
		} else {
			newHorizon = ctx.Now + l.cfg.DeleteRetentionMs
		}
		if p.horizon < 0 || newHorizon < p.horizon {
			p.horizon = newHorizon
		}
	}
	out := b
	if len(kept) != len(recs) || (needHorizon && !hasHorizon) {
		out = record.Rebuild(nil, b, kept, newHorizon)
	}
	pos := p.out.size
	if err := p.out.log.Append(out); err != nil {
		return err
	}
	p.out.size += int64(len(out))
	p.out.track(out, pos, l.cfg)
	p.stats.written += int64(len(out))
	return nil
}

// swapIn replaces segment i with its cleaned copy out: the .cleaned file
// is synced and renamed to .swap (from here a crash completes the swap at
// Open), then the old files give way. A cleaned segment with no batch
// left is deleted instead, unless it is the first: compaction never moves
// the log start offset (in Kafka the first segment absorbs its emptied
// neighbours), so the first segment stays, empty if need be.
func (l *Log) swapIn(i int, out *segment) error {
	old := l.segs[i]
	cleaned, swap := out.names[0]+cleanedSuffix, out.names[0]+swapSuffix
	if out.size == 0 && i > 0 {
		_ = out.log.Close()
		if err := l.st.Remove(cleaned); err != nil {
			return err
		}
		return l.dropSegment(i)
	}
	out.maybeAppendTime()
	// The aborted transaction index keeps the entries whose marker stayed.
	for _, a := range old.txns {
		if out.holds(l.hdr[:], a.LastOffset) {
			out.txns = append(out.txns, a)
		}
	}
	if err := out.log.Sync(); err != nil {
		return err
	}
	if err := out.log.Close(); err != nil {
		return err
	}
	out.log = nil
	if err := l.st.Rename(cleaned, swap); err != nil {
		return err
	}
	// The old segment's open files keep serving reads until the new ones
	// are in place (a file renamed over or removed stays readable through
	// an open handle), so a failure here leaves it usable.
	if err := l.replaceSegmentFiles(out, swap); err != nil {
		return err
	}
	_ = old.close()
	out.created, out.rollStart = old.created, old.rollStart
	l.segs[i] = out
	return nil
}

// holds reports whether a batch of the segment ends at offset (a kept
// marker).
func (s *segment) holds(hdr []byte, offset int64) bool {
	pos := s.ix.lookup(offset).Position
	for pos < s.size {
		if _, err := s.log.ReadAt(hdr[:record.HeaderSize], pos); err != nil {
			return false
		}
		b := record.Batch(hdr)
		if b.LastOffset() >= offset {
			return b.LastOffset() == offset
		}
		pos += int64(b.Size())
	}
	return false
}

// replaceSegmentFiles finishes a swap: the old indexes go, the .swap
// becomes the .log, and out's indexes and .txnindex are written and
// opened. Each step leaves a state Open recovers.
func (l *Log) replaceSegmentFiles(out *segment, swap string) error {
	txnName := out.txnIndexName()
	for _, n := range []string{out.names[1], out.names[2], txnName} {
		if err := l.st.Remove(n); err != nil && !isNotExist(err) {
			return err
		}
	}
	if err := l.st.Rename(swap, out.names[0]); err != nil {
		return err
	}
	if err := l.st.WriteFile(out.names[1], out.ix.buf); err != nil {
		return err
	}
	if err := l.st.WriteFile(out.names[2], out.tix.buf); err != nil {
		return err
	}
	out.ixSaved, out.tixSaved = len(out.ix.buf), len(out.tix.buf)
	if len(out.txns) > 0 {
		var data []byte
		for _, a := range out.txns {
			data = appendAbortedTxn(data, a)
		}
		if err := l.st.WriteFile(txnName, data); err != nil {
			return err
		}
	}
	var err error
	if out.log, err = l.st.Open(out.names[0]); err != nil {
		return err
	}
	if out.idxF, err = l.st.Open(out.names[1]); err != nil {
		return err
	}
	if out.tidxF, err = l.st.Open(out.names[2]); err != nil {
		return err
	}
	if len(out.txns) > 0 {
		if out.txnF, err = l.st.Open(txnName); err != nil {
			return err
		}
	}
	return nil
}

// dropSegment deletes segment i, neither the first nor the active one,
// which holds nothing a reader needs.
func (l *Log) dropSegment(i int) error {
	s := l.segs[i]
	_ = s.close()
	if err := removeSegmentFiles(l.st, l.dir, s.base); err != nil {
		return err
	}
	l.segs = append(l.segs[:i], l.segs[i+1:]...)
	return nil
}

// finishPass moves the checkpoint to the end of the pass.
func (l *Log) finishPass() string {
	p := l.clean.pass
	l.clean.pass = nil
	l.clean.firstDirty, l.clean.horizon = p.end, p.horizon
	segs := "segments"
	if p.stats.segments == 1 {
		segs = "segment"
	}
	note := fmt.Sprintf("cleaned %d %s below offset %d: %d of %d bytes kept, %d records removed",
		p.stats.segments, segs, p.end, p.stats.written, p.stats.read, p.stats.dropped)
	if err := l.saveCleanerCheckpoint(); err != nil {
		note += fmt.Sprintf(" (checkpoint not saved: %v)", err)
	}
	return note
}

// completeSwaps finishes the swaps a crash interrupted (Open, before
// leftovers are deleted): a <base>.log.swap was synced whole before it got
// that name, so it replaces <base>.log; the segment's indexes are rebuilt
// and its .txnindex is deleted and reported, so that the owner rebuilds it.
// It says whether it completed any, which changes the directory's listing.
func (l *Log) completeSwaps(names []string, note func(string, ...any)) (bool, error) {
	swapped := false
	for _, n := range names {
		base, suf, ok := parseName(n)
		if !ok || suf != LogSuffix+swapSuffix {
			continue
		}
		s := newSegmentState(l.dir, base, 0)
		for _, f := range []string{s.names[1], s.names[2], s.txnIndexName()} {
			if err := l.st.Remove(f); err != nil && !isNotExist(err) {
				return swapped, err
			}
		}
		if err := l.st.Rename(path.Join(l.dir, n), s.names[0]); err != nil {
			return swapped, err
		}
		if l.txnSuspect < 0 || base < l.txnSuspect {
			l.txnSuspect = base
		}
		swapped = true
		note("completed the interrupted cleaning of %s", FileName(base, LogSuffix))
	}
	return swapped, nil
}
