package server

import (
	"math/bits"
	"sync"
)

// Request frames from minPooledFrame to maxPooledFrame bytes are read
// into buffers kept in framePools, one pool per power-of-two size class,
// and a produce request's buffer goes back once it is answered: the
// broker has then written its batches to the segment (a copy into the
// page cache) and holds no slice of it. Without this each frame was a
// fresh buffer of its size, and zeroing it, collecting it and returning
// its pages cost 15-20% of the broker's CPU per produced byte (make
// bench, server/bench/doc.go).
//
// Invariants:
//   - A buffer in a pool is referenced by nobody: putFrame is called only
//     on a frame whose request the broker answered, and the live trace
//     copies what it keeps of a produce request (trace.go); on a
//     leader's Fetch answer to this node's follower once the broker
//     received it, having appended its batches (a copy, store.File); or
//     on a range a peer link read for TLS once written (copyRange).
//   - Every buffer's capacity is its class's size exactly, and a frame is
//     a prefix of it.
//   - Frames below minPooledFrame (every request but a producer's, in
//     practice) are buffers of their own size, as before: a class buffer
//     would waste up to half of it on the many small requests.
const (
	minPooledShift = 16 // 64 KiB
	maxPooledShift = 23 // 8 MiB: frameGrowth × frameChunk
	minPooledFrame = 1 << minPooledShift
	maxPooledFrame = 1 << maxPooledShift
)

var framePools [maxPooledShift - minPooledShift + 1]sync.Pool

// classOf is the index of the smallest class holding n bytes
// (minPooledFrame <= n <= maxPooledFrame).
func classOf(n int) int { return max(bits.Len(uint(n-1))-minPooledShift, 0) }

// classSize is the capacity of the buffers n bytes are read into.
func classSize(n int) int { return minPooledFrame << classOf(n) }

// getFrame is a buffer of n bytes from its class's pool, or a new one.
func getFrame(n int) *[]byte {
	c := classOf(n)
	if b, ok := framePools[c].Get().(*[]byte); ok {
		*b = (*b)[:n]
		return b
	}
	b := make([]byte, n, minPooledFrame<<c)
	return &b
}

// putFrame gives a frame's buffer back to its class's pool.
func putFrame(b *[]byte) {
	framePools[classOf(cap(*b))].Put(b)
}
