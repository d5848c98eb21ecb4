package log

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Sizes of one entry in the .index and .timeindex files.
const (
	OffsetEntrySize = 8  // relative offset uint32 + position uint32
	TimeEntrySize   = 12 // timestamp int64 + relative offset uint32
)

// IndexEntry maps an offset to the file position of the batch holding it.
// Kafka's LogSegment.append writes (the batch's last offset, the position of
// the batch's first byte) once every index.interval.bytes.
type IndexEntry struct {
	Offset   int64 // absolute; stored relative to the segment's base offset
	Position int64
}

// TimeIndexEntry says that no batch before Offset's has a timestamp greater
// than Timestamp (Kafka's TimestampOffset). Offset is the last offset of the
// batch that holds the segment's largest timestamp so far.
type TimeIndexEntry struct {
	Timestamp int64
	Offset    int64
}

// OffsetIndex is a segment's sparse offset index, held as the bytes of its
// .index file. Kafka memory-maps the file; Gregor keeps the same bytes in a
// slice and appends them to storage.
type OffsetIndex struct {
	base int64
	buf  []byte
}

// ParseOffsetIndex reads the bytes of a .index file of the segment whose
// base offset is base. It fails unless the length is a multiple of 8.
func ParseOffsetIndex(base int64, data []byte) (*OffsetIndex, error) {
	if len(data)%OffsetEntrySize != 0 {
		return nil, fmt.Errorf("%w: index size %d is not a multiple of %d", ErrCorrupt, len(data), OffsetEntrySize)
	}
	return &OffsetIndex{base: base, buf: data}, nil
}

// Len is the number of entries.
func (ix *OffsetIndex) Len() int { return len(ix.buf) / OffsetEntrySize }

// Entry returns entry i.
func (ix *OffsetIndex) Entry(i int) IndexEntry {
	p := ix.buf[i*OffsetEntrySize:]
	return IndexEntry{
		Offset:   ix.base + int64(binary.BigEndian.Uint32(p)),
		Position: int64(binary.BigEndian.Uint32(p[4:])),
	}
}

// Entries returns a copy of every entry.
func (ix *OffsetIndex) Entries() []IndexEntry {
	out := make([]IndexEntry, ix.Len())
	for i := range out {
		out[i] = ix.Entry(i)
	}
	return out
}

// Bytes is the index file's content (not a copy).
func (ix *OffsetIndex) Bytes() []byte { return ix.buf }

// Lookup finds the entry with the largest offset <= target, as Kafka's
// OffsetIndex.lookup does; when every entry is larger (or there are none)
// it returns (base offset, position 0). steps lists the entries the binary
// search probed, in order, for teaching views.
func (ix *OffsetIndex) Lookup(target int64) (entry IndexEntry, steps []IndexEntry) {
	slot := largestLowerBound(ix.Len(), func(i int) int64 { return ix.Entry(i).Offset }, target,
		func(i int) { steps = append(steps, ix.Entry(i)) })
	if slot < 0 {
		return IndexEntry{Offset: ix.base}, steps
	}
	return ix.Entry(slot), steps
}

// lookup is Lookup without the trace, for the fetch path.
func (ix *OffsetIndex) lookup(target int64) IndexEntry {
	slot := largestLowerBound(ix.Len(), func(i int) int64 { return ix.Entry(i).Offset }, target, nil)
	if slot < 0 {
		return IndexEntry{Offset: ix.base}
	}
	return ix.Entry(slot)
}

func (ix *OffsetIndex) last() (IndexEntry, bool) {
	if ix.Len() == 0 {
		return IndexEntry{Offset: ix.base}, false
	}
	return ix.Entry(ix.Len() - 1), true
}

func appendOffsetEntry(dst []byte, base int64, e IndexEntry) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(e.Offset-base))
	return binary.BigEndian.AppendUint32(dst, uint32(e.Position))
}

// check reports the first way the entries contradict a segment of size
// bytes whose offsets are below limit (math.MaxInt64 if unknown): entries
// must strictly increase in offset and position and point inside the file.
func (ix *OffsetIndex) check(size, limit int64) error {
	prev := IndexEntry{Offset: ix.base - 1, Position: -1}
	for i := 0; i < ix.Len(); i++ {
		e := ix.Entry(i)
		if e.Offset <= prev.Offset || e.Position <= prev.Position {
			return fmt.Errorf("entry %d (offset %d, position %d) does not follow (offset %d, position %d)",
				i, e.Offset, e.Position, prev.Offset, prev.Position)
		}
		if e.Position >= size || e.Offset >= limit {
			return fmt.Errorf("entry %d (offset %d, position %d) is beyond the log", i, e.Offset, e.Position)
		}
		prev = e
	}
	return nil
}

// TimeIndex is a segment's sparse time index (the .timeindex file).
type TimeIndex struct {
	base int64
	buf  []byte
}

// ParseTimeIndex reads the bytes of a .timeindex file.
func ParseTimeIndex(base int64, data []byte) (*TimeIndex, error) {
	if len(data)%TimeEntrySize != 0 {
		return nil, fmt.Errorf("%w: time index size %d is not a multiple of %d", ErrCorrupt, len(data), TimeEntrySize)
	}
	return &TimeIndex{base: base, buf: data}, nil
}

// Len is the number of entries.
func (ix *TimeIndex) Len() int { return len(ix.buf) / TimeEntrySize }

// Entry returns entry i.
func (ix *TimeIndex) Entry(i int) TimeIndexEntry {
	p := ix.buf[i*TimeEntrySize:]
	return TimeIndexEntry{
		Timestamp: int64(binary.BigEndian.Uint64(p)),
		Offset:    ix.base + int64(binary.BigEndian.Uint32(p[8:])),
	}
}

// Entries returns a copy of every entry.
func (ix *TimeIndex) Entries() []TimeIndexEntry {
	out := make([]TimeIndexEntry, ix.Len())
	for i := range out {
		out[i] = ix.Entry(i)
	}
	return out
}

// Bytes is the time index file's content (not a copy).
func (ix *TimeIndex) Bytes() []byte { return ix.buf }

// Lookup finds the entry with the largest timestamp <= target, as Kafka's
// TimeIndex.lookup does; with none it returns (-1, base offset). steps
// lists the probed entries.
func (ix *TimeIndex) Lookup(target int64) (entry TimeIndexEntry, steps []TimeIndexEntry) {
	slot := largestLowerBound(ix.Len(), func(i int) int64 { return ix.Entry(i).Timestamp }, target,
		func(i int) { steps = append(steps, ix.Entry(i)) })
	if slot < 0 {
		return TimeIndexEntry{Timestamp: -1, Offset: ix.base}, steps
	}
	return ix.Entry(slot), steps
}

// lookupFast is Lookup without the trace.
func (ix *TimeIndex) lookupFast(target int64) (TimeIndexEntry, bool) {
	slot := largestLowerBound(ix.Len(), func(i int) int64 { return ix.Entry(i).Timestamp }, target, nil)
	if slot < 0 {
		return TimeIndexEntry{Timestamp: -1, Offset: ix.base}, false
	}
	return ix.Entry(slot), true
}

func (ix *TimeIndex) last() (TimeIndexEntry, bool) {
	if ix.Len() == 0 {
		return TimeIndexEntry{Timestamp: -1, Offset: ix.base}, false
	}
	return ix.Entry(ix.Len() - 1), true
}

func appendTimeEntry(dst []byte, base int64, e TimeIndexEntry) []byte {
	dst = binary.BigEndian.AppendUint64(dst, uint64(e.Timestamp))
	return binary.BigEndian.AppendUint32(dst, uint32(e.Offset-base))
}

// check: timestamps never decrease, offsets never decrease and stay below
// limit.
func (ix *TimeIndex) check(limit int64) error {
	prev := TimeIndexEntry{Timestamp: math.MinInt64, Offset: ix.base}
	for i := 0; i < ix.Len(); i++ {
		e := ix.Entry(i)
		if e.Timestamp < prev.Timestamp || e.Offset < prev.Offset || e.Offset >= limit {
			return fmt.Errorf("entry %d (timestamp %d, offset %d) is out of order or beyond the log", i, e.Timestamp, e.Offset)
		}
		prev = e
	}
	return nil
}

// largestLowerBound is the binary search of Kafka's AbstractIndex
// (largestLowerBoundSlotFor): the largest slot whose key is <= target, or -1
// when the first key is already larger. Keys must not decrease. trace, if
// not nil, sees every probed slot.
func largestLowerBound(n int, key func(int) int64, target int64, trace func(int)) int {
	if n == 0 {
		return -1
	}
	probe := func(i int) int64 {
		if trace != nil {
			trace(i)
		}
		return key(i)
	}
	if probe(0) > target {
		return -1
	}
	lo, hi := 0, n-1
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		k := probe(mid)
		switch {
		case k == target:
			return mid
		case k < target:
			lo = mid
		default:
			hi = mid - 1
		}
	}
	return lo
}
