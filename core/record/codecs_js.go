//go:build js

package record

import "fmt"

// inflate: the browser build leaves every codec out. The simulator never
// compresses, and the decoders were a fifth of what kept the playground's
// download over its 2.5 MB budget: snappy, lz4 and zstd first, then gzip,
// whose compress/flate nothing else in the bundle uses (about 20 KB
// gzipped).
func inflate(codec int8, src []byte, limit int) ([]byte, error) {
	return nil, fmt.Errorf("%w: codec %d is not in the browser build", ErrCompression, codec)
}
