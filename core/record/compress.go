package record

import "fmt"

// decompress inflates a batch's records section, refusing to produce more
// than limit bytes. The codecs themselves are per build: codecs.go for the
// native broker, codecs_js.go for the browser's.
func decompress(codec int8, src []byte, limit int) ([]byte, error) {
	switch codec {
	case CodecGzip, CodecSnappy, CodecLZ4, CodecZstd:
		return inflate(codec, src, limit)
	}
	return nil, fmt.Errorf("%w: unknown codec %d", ErrCompression, codec)
}
