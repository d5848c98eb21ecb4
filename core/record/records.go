package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// MaxDecompressedSize bounds how many bytes Records will inflate one batch
// to, so a hostile batch (a "zip bomb") cannot exhaust memory. Kafka's own
// bound is the broker's message.max.bytes on the compressed size; the
// decompressed bound here is a Gregor safety net.
const MaxDecompressedSize = 64 << 20

// Compression codec ids in the low three attribute bits (KIP-110 added zstd).
const (
	CodecNone   = 0
	CodecGzip   = 1
	CodecSnappy = 2
	CodecLZ4    = 3
	CodecZstd   = 4
)

// More sentinel errors.
var (
	ErrRecord      = errors.New("record: malformed record")
	ErrCompression = errors.New("record: cannot decompress batch")
	ErrTooLarge    = errors.New("record: decompressed batch too large")
)

// Header is a record header (KIP-82).
type Header struct {
	Key   string
	Value []byte // nil when the length is -1
}

// Record is one record of a v2 batch, as laid out in Kafka's
// DefaultRecord: lengths and deltas are zig-zag varints, and a length of -1
// means null.
type Record struct {
	Attributes     int8 // unused by Kafka today; kept for a faithful view
	TimestampDelta int64
	OffsetDelta    int32
	Key, Value     []byte // nil when the length is -1
	Headers        []Header
}

// Records decodes every record in the batch, decompressing the records
// section first when the batch is compressed. The returned keys, values and
// headers alias b when it is uncompressed, and a fresh buffer otherwise.
// Decoding is for timestamp lookups and teaching views; the produce and
// fetch paths never call it.
func (b Batch) Records() ([]Record, error) {
	if len(b) < HeaderSize {
		return nil, ErrShort
	}
	if n := b.Size(); n < HeaderSize || n > len(b) {
		return nil, fmt.Errorf("%w: header says %d bytes, have %d", ErrLength, b.BatchLength()+LogOverhead, len(b))
	}
	body := []byte(b[HeaderSize:b.Size()])
	if c := b.Compression(); c != CodecNone {
		var err error
		if body, err = decompress(c, body, MaxDecompressedSize); err != nil {
			return nil, err
		}
	}
	count := int(b.RecordCount())
	if count < 0 {
		return nil, fmt.Errorf("%w: record count %d", ErrRecordCount, count)
	}
	// Every record takes at least 7 bytes (seven one-byte varints), which
	// bounds the allocation by the input size rather than by the header.
	out := make([]Record, 0, min(count, len(body)/7))
	d := decoder{p: body}
	for i := 0; i < count; i++ {
		r, err := d.record()
		if err != nil {
			return nil, fmt.Errorf("record %d of %d: %w", i, count, err)
		}
		out = append(out, r)
	}
	if len(d.p) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after the last record", ErrRecord, len(d.p))
	}
	return out, nil
}

type decoder struct{ p []byte }

func (d *decoder) varint() (int64, error) {
	v, n := binary.Varint(d.p)
	if n <= 0 {
		return 0, fmt.Errorf("%w: bad varint", ErrRecord)
	}
	d.p = d.p[n:]
	return v, nil
}

func (d *decoder) bytes() ([]byte, error) {
	n, err := d.varint()
	if err != nil {
		return nil, err
	}
	if n == -1 {
		return nil, nil
	}
	if n < -1 || n > int64(len(d.p)) {
		return nil, fmt.Errorf("%w: length %d with %d bytes left", ErrRecord, n, len(d.p))
	}
	v := d.p[:n:n]
	d.p = d.p[n:]
	return v, nil
}

func (d *decoder) record() (Record, error) {
	var r Record
	length, err := d.varint()
	if err != nil {
		return r, err
	}
	if length < 0 || length > int64(len(d.p)) {
		return r, fmt.Errorf("%w: record length %d with %d bytes left", ErrRecord, length, len(d.p))
	}
	rest := d.p[length:]
	d.p = d.p[:length]
	if len(d.p) < 1 {
		return r, fmt.Errorf("%w: empty record", ErrRecord)
	}
	r.Attributes = int8(d.p[0])
	d.p = d.p[1:]
	if r.TimestampDelta, err = d.varint(); err != nil {
		return r, err
	}
	od, err := d.varint()
	if err != nil {
		return r, err
	}
	if od < math.MinInt32 || od > math.MaxInt32 {
		return r, fmt.Errorf("%w: offset delta %d", ErrRecord, od)
	}
	r.OffsetDelta = int32(od)
	if r.Key, err = d.bytes(); err != nil {
		return r, err
	}
	if r.Value, err = d.bytes(); err != nil {
		return r, err
	}
	nh, err := d.varint()
	if err != nil {
		return r, err
	}
	if nh < 0 || nh > int64(len(d.p))/2 { // a header takes at least 2 bytes
		return r, fmt.Errorf("%w: %d headers with %d bytes left", ErrRecord, nh, len(d.p))
	}
	if nh > 0 {
		r.Headers = make([]Header, 0, nh)
	}
	for i := int64(0); i < nh; i++ {
		k, err := d.bytes()
		if err != nil {
			return r, err
		}
		if k == nil {
			return r, fmt.Errorf("%w: null header key", ErrRecord)
		}
		v, err := d.bytes()
		if err != nil {
			return r, err
		}
		r.Headers = append(r.Headers, Header{Key: string(k), Value: v})
	}
	if len(d.p) != 0 {
		return r, fmt.Errorf("%w: %d bytes left inside the record", ErrRecord, len(d.p))
	}
	d.p = rest
	return r, nil
}
