//go:build !js

package record

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// xerialMagic starts snappy data framed the way snappy-java's
// SnappyOutputStream does, which is what Kafka's Java client writes: the
// magic, a version and a compatible-version int32, then blocks each prefixed
// by a big-endian int32 length. librdkafka and franz-go accept it and may
// write raw snappy blocks instead, so both are decoded.
var xerialMagic = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

// inflate decodes one of Kafka's four codecs.
func inflate(codec int8, src []byte, limit int) ([]byte, error) {
	switch codec {
	case CodecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %w", ErrCompression, err)
		}
		return readLimited(zr, limit, "gzip")
	case CodecSnappy:
		return unsnappy(src, limit)
	case CodecLZ4:
		return readLimited(lz4.NewReader(bytes.NewReader(src)), limit, "lz4")
	}
	// One decoder per call keeps the package free of global state; a
	// concurrency of 1 keeps it free of goroutines.
	zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(uint64(limit)), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %w", ErrCompression, err)
	}
	defer zr.Close()
	out, err := zr.DecodeAll(src, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %w", ErrCompression, err)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("%w: zstd over %d bytes", ErrTooLarge, limit)
	}
	return out, nil
}

func readLimited(r io.Reader, limit int, name string) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCompression, name, err)
	}
	if len(out) > limit {
		return nil, fmt.Errorf("%w: %s over %d bytes", ErrTooLarge, name, limit)
	}
	return out, nil
}

func unsnappy(src []byte, limit int) ([]byte, error) {
	if !bytes.HasPrefix(src, xerialMagic) {
		return snappyBlock(nil, src, limit)
	}
	p := src[len(xerialMagic):]
	if len(p) < 8 {
		return nil, fmt.Errorf("%w: snappy: short xerial header", ErrCompression)
	}
	p = p[8:] // version, compatible version
	var out []byte
	for len(p) > 0 {
		if len(p) < 4 {
			return nil, fmt.Errorf("%w: snappy: short xerial block length", ErrCompression)
		}
		n := binary.BigEndian.Uint32(p)
		p = p[4:]
		if uint64(n) > uint64(len(p)) {
			return nil, fmt.Errorf("%w: snappy: xerial block of %d bytes, %d left", ErrCompression, n, len(p))
		}
		var err error
		if out, err = snappyBlock(out, p[:n], limit); err != nil {
			return nil, err
		}
		p = p[n:]
	}
	return out, nil
}

// snappyBlock appends one raw snappy block to dst, within limit in total.
func snappyBlock(dst, block []byte, limit int) ([]byte, error) {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return nil, fmt.Errorf("%w: snappy: %w", ErrCompression, err)
	}
	if n > limit-len(dst) {
		return nil, fmt.Errorf("%w: snappy over %d bytes", ErrTooLarge, limit)
	}
	out, err := snappy.Decode(make([]byte, n), block)
	if err != nil {
		return nil, fmt.Errorf("%w: snappy: %w", ErrCompression, err)
	}
	return append(dst, out...), nil
}
