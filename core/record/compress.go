package record

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
)

// decompress inflates a batch's records section, refusing to produce more
// than limit bytes.
func decompress(codec int8, src []byte, limit int) ([]byte, error) {
	switch codec {
	case CodecGzip:
		zr, err := gzip.NewReader(bytes.NewReader(src))
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %w", ErrCompression, err)
		}
		return readLimited(zr, limit, "gzip")
	case CodecSnappy, CodecLZ4, CodecZstd:
		return decompressOther(codec, src, limit)
	}
	return nil, fmt.Errorf("%w: unknown codec %d", ErrCompression, codec)
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
