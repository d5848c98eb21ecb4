//go:build js

package record

import "fmt"

// decompressOther: the browser build leaves snappy, lz4 and zstd out. The
// simulator never compresses, and the three decoders were a fifth of what
// kept the playground's download over its 2.5 MB budget; gzip stays, since
// the standard library brings it anyway.
func decompressOther(codec int8, src []byte, limit int) ([]byte, error) {
	return nil, fmt.Errorf("%w: codec %d is not in the browser build", ErrCompression, codec)
}
