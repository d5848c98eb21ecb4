package log

import (
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// Extent is what a read found: whole batches of one segment, as bytes
// or, when the read asked to pin and the segment's file can
// (store.Ranger), as a Span of the file that the caller's driver sends
// and releases (zero-copy fetch, issue 23). Exactly one of Bytes and
// Span is set when it holds batches; neither when it is empty.
type Extent struct {
	Bytes []byte
	Span  store.Span
	// Next is the offset after the last batch (the read's end, for the
	// aborted transactions it overlaps); 0 when empty.
	Next int64
}

// Len is the extent's size in bytes.
func (e Extent) Len() int {
	if e.Span != nil {
		return e.Span.Len()
	}
	return len(e.Bytes)
}

// Read returns whole batches starting with the one that contains offset,
// from a single segment as Kafka's LogSegment.read does (a later call
// continues in the next segment). Only batches whose last offset is below
// maxOffset (the high watermark, or the last stable offset for
// read_committed) are returned, and no more than maxBytes, except that with
// minOne the first batch is returned even if it is larger (KIP-74). Reading
// at the log end returns nothing.
func (l *Log) Read(offset int64, maxBytes int, maxOffset int64, minOne bool) ([]byte, error) {
	e, err := l.ReadExtent(offset, maxBytes, maxOffset, minOne, false)
	return e.Bytes, err
}

// ReadExtent is Read, returning the batches pinned rather than copied
// when pin is set and the segment's file can pin them. Either way each
// batch header on the way is read and checked (its offsets follow the
// previous batch's, within the segment), which is where maxOffset cuts;
// a pinned extent's record bytes are never read here.
func (l *Log) ReadExtent(offset int64, maxBytes int, maxOffset int64, minOne, pin bool) (Extent, error) {
	if l.closed {
		return Extent{}, ErrClosed
	}
	if err := l.checkRange(offset); err != nil {
		return Extent{}, err
	}
	if offset == l.EndOffset() || offset >= maxOffset {
		return Extent{}, nil
	}
	for i := l.segmentFor(offset); i < len(l.segs); i++ {
		seg := l.segs[i]
		if offset >= seg.next {
			continue
		}
		pos, ok, err := seg.find(l.hdr[:], offset)
		if err != nil {
			return Extent{}, err
		}
		if !ok {
			continue
		}
		if r, can := seg.log.(store.Ranger); pin && can {
			return l.pinFrom(seg, r, pos, maxBytes, maxOffset, minOne)
		}
		return l.readFrom(seg, pos, maxBytes, maxOffset, minOne)
	}
	return Extent{}, nil
}

// pinFrom pins the batches from pos, walking their headers one pread
// each.
func (l *Log) pinFrom(seg *segment, r store.Ranger, pos int64, maxBytes int, maxOffset int64, minOne bool) (Extent, error) {
	n, next, err := seg.extent(pos, maxBytes, maxOffset, minOne, func(at int64) (record.Batch, int, error) {
		return seg.readHeader(l.hdr[:], at)
	})
	if err != nil || n == 0 {
		return Extent{}, err
	}
	sp, err := r.Span(pos, int(n))
	if err != nil {
		return Extent{}, err
	}
	return Extent{Span: sp, Next: next}, nil
}

// readFrom reads the batches from pos with one pread of up to maxBytes,
// walking their headers in that buffer; only a first batch larger than
// maxBytes (KIP-74) takes a second read.
func (l *Log) readFrom(seg *segment, pos int64, maxBytes int, maxOffset int64, minOne bool) (Extent, error) {
	want := min(int64(max(maxBytes, 0)), seg.size-pos)
	var buf []byte
	if want >= record.HeaderSize {
		buf = make([]byte, want)
		if _, err := seg.log.ReadAt(buf, pos); err != nil {
			return Extent{}, err
		}
	}
	n, next, err := seg.extent(pos, maxBytes, maxOffset, minOne, func(at int64) (record.Batch, int, error) {
		if in := at - pos; in+record.HeaderSize <= int64(len(buf)) {
			return seg.checkHeader(buf[in:], at)
		}
		return seg.readHeader(l.hdr[:], at)
	})
	if err != nil || n == 0 {
		return Extent{}, err
	}
	if n > int64(len(buf)) {
		buf = make([]byte, n)
		if _, err := seg.log.ReadAt(buf, pos); err != nil {
			return Extent{}, err
		}
	}
	return Extent{Bytes: buf[:n], Next: next}, nil
}

// extent walks the batch headers of s from pos, reading each with head:
// the answer is the whole batches below maxOffset that fit in maxBytes,
// the first one whatever its size with minOne (KIP-74). Each batch's
// offsets must follow the previous one's (inSequence). It returns their
// size and the offset after the last. A header is only read when its
// batch could fit, so a walk in a buffer of maxBytes never leaves it but
// for the first batch.
func (s *segment) extent(pos int64, maxBytes int, maxOffset int64, minOne bool, head func(at int64) (record.Batch, int, error)) (n, next int64, err error) {
	fits := func(end int64) bool { return end-pos <= int64(maxBytes) || minOne && n == 0 }
	after := s.base
	for pos+n < s.size && fits(pos+n+record.HeaderSize) {
		at := pos + n
		b, size, err := head(at)
		if err != nil {
			return 0, 0, err
		}
		if err := s.inSequence(b, after, at); err != nil {
			return 0, 0, err
		}
		if b.LastOffset() >= maxOffset || !fits(at+int64(size)) {
			break
		}
		after = b.LastOffset() + 1
		n += int64(size)
	}
	if n == 0 {
		return 0, 0, nil
	}
	return n, after, nil
}
