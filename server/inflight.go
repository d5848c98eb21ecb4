package server

import (
	"io"
	"slices"
	"sync"
)

// maxInFlight bounds the requests a connection may have outstanding; the
// reader stops reading until they are answered.
const maxInFlight = 128

// maxInFlightBytes bounds the request bytes a connection may have read
// and not yet seen through the engine (answered, or handled for an acks=0
// produce): its reader stops reading until they are. One request larger
// than this is still let in when nothing else is outstanding, so what a
// connection holds is at most max(maxInFlightBytes, socket.request.max.bytes).
// franz-go's and the Java producer's defaults (5 requests of at most
// 1 MiB) fit three times over.
const maxInFlightBytes = 16 << 20

// inflight counts what one connection has outstanding: requests and their
// bytes, acks=0 produces included (Kafka's clients pipeline those freely).
// The reader acquires before it reads a frame's body; the writer releases
// once the answer is written, the engine once it handled an acks=0 produce.
type inflight struct {
	mu    sync.Mutex
	n     int
	bytes int64
	freed chan struct{} // signalled on each release
}

func newInflight() *inflight { return &inflight{freed: make(chan struct{}, 1)} }

// acquire waits until a request of size bytes fits, or done closes.
func (f *inflight) acquire(size int64, done <-chan struct{}) bool {
	for !f.tryAcquire(size) {
		select {
		case <-f.freed:
		case <-done:
			return false
		}
	}
	return true
}

// tryAcquire takes a place for a request of size bytes if it fits now.
func (f *inflight) tryAcquire(size int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n > 0 && (f.n >= maxInFlight || f.bytes+size > maxInFlightBytes) {
		return false
	}
	f.n++
	f.bytes += size
	return true
}

// release gives back one request of size bytes.
func (f *inflight) release(size int64) {
	f.mu.Lock()
	f.n--
	f.bytes -= size
	f.mu.Unlock()
	select {
	case f.freed <- struct{}{}:
	default:
	}
}

// frameChunk is the largest buffer a frame's read starts with: a frame
// up to this size is read into a buffer of its exact size (a producer's
// batch is at most 1 MB by default).
const frameChunk = 1 << 20

// frameGrowth bounds what a frame's buffer holds against what arrived:
// frameGrowth times it at most (past frameChunk). Doubling would hold
// less, but the copies and garbage cost a third more CPU per produced
// byte (make bench); eightfold copies at most a seventh of the frame.
const frameGrowth = 8

// stages are the buffers a frame larger than frameChunk starts in
// (readFrame); one never leaves readFrame, so it is reused.
var stages = sync.Pool{New: func() any { b := make([]byte, frameChunk); return &b }}

// readFrame reads an n-byte frame into a buffer that grows as the bytes
// arrive, so that a client announcing 100 MiB and sending ten bytes
// holds 1 MiB, not 100 MiB: what a frame holds is at most
// max(frameChunk, frameGrowth × what arrived).
//
// A frame from minPooledFrame to maxPooledFrame (8 MiB) is read into a
// buffer of its size class from framePools, which pooled returns: the
// caller puts it back with putFrame once nothing references the frame (a
// produce answered, conn.go), or drops it. Past frameChunk the class
// buffer is taken only once a 1/frameGrowth part of it arrived, in a
// reused stage buffer. So a producer's frame costs no allocation once
// the pool is warm. Every other frame is readOwnFrame's.
func readFrame(r io.Reader, n int) (frame []byte, pooled *[]byte, err error) {
	if n < minPooledFrame || n > maxPooledFrame {
		frame, err := readOwnFrame(r, n)
		return frame, nil, err
	}
	var stage []byte
	if n > frameChunk {
		sp := stages.Get().(*[]byte)
		defer stages.Put(sp)
		stage = (*sp)[:classSize(n)/frameGrowth]
		if _, err := io.ReadFull(r, stage); err != nil {
			return nil, nil, unexpectedEOF(err)
		}
	}
	pooled = getFrame(n)
	got := copy(*pooled, stage)
	if _, err := io.ReadFull(r, (*pooled)[got:]); err != nil {
		putFrame(pooled)
		return nil, nil, unexpectedEOF(err)
	}
	return *pooled, pooled, nil
}

// readOwnFrame reads an n-byte frame into a buffer of its own: one of
// its size up to frameChunk; past that, after a 1/frameGrowth part came
// into a reused stage buffer, one of its size up to frameGrowth ×
// frameChunk, growing frameGrowth-fold at most past that. So a frame
// costs one allocation of its size and a copy of an eighth of it, not a
// 1 MiB buffer thrown away and copied over.
func readOwnFrame(r io.Reader, n int) ([]byte, error) {
	if n <= frameChunk {
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, unexpectedEOF(err)
		}
		return buf, nil
	}
	sp := stages.Get().(*[]byte)
	stage := (*sp)[:min(frameChunk, (n+frameGrowth-1)/frameGrowth)]
	if _, err := io.ReadFull(r, stage); err != nil {
		stages.Put(sp)
		return nil, unexpectedEOF(err)
	}
	buf := make([]byte, len(stage), min(n, frameGrowth*len(stage)))
	copy(buf, stage)
	stages.Put(sp)
	for len(buf) < n {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(n, frameGrowth*cap(buf))-len(buf))
		}
		m, err := r.Read(buf[len(buf):min(cap(buf), n)])
		buf = buf[:len(buf)+m]
		if err != nil && len(buf) < n {
			return nil, unexpectedEOF(err)
		}
	}
	return buf, nil
}

// unexpectedEOF is err, io.ErrUnexpectedEOF for io.EOF: a frame cut short.
func unexpectedEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
