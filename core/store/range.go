package store

// Span is a pinned byte range of a File: a handle the engine passes to its
// driver, which sends the bytes itself (the native server with
// sendfile(2)); the engine never reads through it. While a Span is held
// the range stays readable: closing the file only takes effect at the
// last Release, and a file removed meanwhile keeps its bytes for the
// holder. A Truncate that cuts into the range marks the Span short, and
// its driver must not send it (a send that comes up short closes its
// connection rather than put a malformed answer on the wire).
type Span interface {
	// Len is the range's length in bytes.
	Len() int
	// Release unpins the range; the Span is unusable afterwards. A
	// second Release is a no-op.
	Release()
}

// Ranger is implemented by a File that can hand out Spans of itself
// (server/filestore). Mem does not: the engine then reads bytes, which
// is the only way in the browser and the simulator.
type Ranger interface {
	// Span pins [off, off+n) of the file; it fails on a closed file or
	// a range past its end.
	Span(off int64, n int) (Span, error)
}
