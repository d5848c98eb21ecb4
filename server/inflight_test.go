package server

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestInflightBytes: a connection's requests wait while their bytes would
// pass maxInFlightBytes, one request larger than it passes alone, and a
// release lets the next one in.
func TestInflightBytes(t *testing.T) {
	f := newInflight()
	if !f.tryAcquire(maxInFlightBytes + 1) {
		t.Fatal("a request larger than the bound must pass when nothing is outstanding")
	}
	if f.tryAcquire(1) {
		t.Fatal("a request was let in over the byte bound")
	}
	got := make(chan bool)
	go func() { got <- f.acquire(1, nil) }()
	f.release(maxInFlightBytes + 1)
	if !<-got {
		t.Fatal("the waiting request was not let in after a release")
	}
	for range maxInFlight - 1 {
		if !f.tryAcquire(1) {
			t.Fatal("small requests refused under maxInFlight")
		}
	}
	if f.tryAcquire(1) {
		t.Fatalf("request %d was let in over maxInFlight", maxInFlight+1)
	}
	done := make(chan struct{})
	close(done)
	if f.acquire(1, done) {
		t.Fatal("acquire on a closed connection let a request in")
	}
}

// TestReadFrameGrows: a frame announced large but cut short allocates
// about what arrived, not what was announced.
func TestReadFrameGrows(t *testing.T) {
	const announced = 100 << 20
	var before, after runtime.MemStats
	for _, announced := range []int{announced, maxPooledFrame} {
		runtime.ReadMemStats(&before)
		_, _, err := readFrame(io.LimitReader(bytes.NewReader(make([]byte, 1<<20)), 300<<10), announced)
		runtime.ReadMemStats(&after)
		if err != io.ErrUnexpectedEOF {
			t.Fatalf("err %v, want io.ErrUnexpectedEOF", err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Fatalf("%d bytes allocated for a frame of %d cut after 300 KiB", alloc, announced)
		}
	}
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	if frame, _, err := readFrame(&slowReader{data}, len(data)); err != nil || !bytes.Equal(frame, data) {
		t.Fatalf("a whole frame read in small pieces: err %v, equal %v", err, bytes.Equal(frame, data))
	}
}

// TestReadFrameSizes: frames of every size class read whole, in small
// pieces or at once. One under minPooledFrame gets a buffer of its exact
// size; one up to maxPooledFrame a buffer of its class's size from the
// pool, so that a producer's frames of a few MiB, put back once answered,
// allocate nothing once the pool is warm; a larger one is its own. In a
// buffer of its own (readOwnFrame, between brokers) a frame up to 8 MiB
// gets one of its exact size.
func TestReadFrameSizes(t *testing.T) {
	for _, n := range []int{0, 1, 777, minPooledFrame - 1, minPooledFrame, minPooledFrame + 1, frameChunk - 1, frameChunk, frameChunk + 1,
		1_000_012 + 120, 1_048_576 + 3_000, 6 << 20, maxPooledFrame, maxPooledFrame + 1, 20 << 20} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + i>>11)
		}
		frame, pooled, err := readFrame(&slowReader{data}, n)
		if err != nil || !bytes.Equal(frame, data) {
			t.Fatalf("%d bytes in small pieces: err %v, equal %v", n, err, bytes.Equal(frame, data))
		}
		if pooled != nil {
			putFrame(pooled)
		}
		frame, pooled, err = readFrame(bytes.NewReader(data), n)
		if err != nil || !bytes.Equal(frame, data) {
			t.Fatalf("%d bytes at once: err %v, equal %v", n, err, bytes.Equal(frame, data))
		}
		switch {
		case n < minPooledFrame && (pooled != nil || cap(frame) != n):
			t.Errorf("%d bytes: buffer of %d (pooled %v), want its own of its exact size", n, cap(frame), pooled != nil)
		case n >= minPooledFrame && n <= maxPooledFrame && (pooled == nil || cap(frame) != classSize(n) || classSize(n) >= 2*n):
			t.Errorf("%d bytes: buffer of %d (pooled %v), want the pool's of %d", n, cap(frame), pooled != nil, classSize(n))
		case n > maxPooledFrame && pooled != nil:
			t.Errorf("%d bytes: a pooled buffer, past the largest class", n)
		}
		if pooled != nil {
			putFrame(pooled)
		}
		own, err := readOwnFrame(&slowReader{data}, n)
		if err != nil || !bytes.Equal(own, data) || n <= frameGrowth*frameChunk && cap(own) != n {
			t.Errorf("%d bytes in a buffer of their own: err %v, equal %v, buffer of %d, want its exact size", n, err, bytes.Equal(own, data), cap(own))
		}
	}
	const n = 6 << 20
	data := make([]byte, n)
	// A collection empties the pools, and a Get on another P than the
	// Put misses it (under make test's load it did): one P, no
	// collections, and an average over a few frames.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_, pooled, _ := readFrame(bytes.NewReader(data), n) // the stage and class buffers, once
	putFrame(pooled)
	const frames = 4
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range frames {
		_, pooled, err := readFrame(bytes.NewReader(data), n)
		if err != nil {
			t.Fatal(err)
		}
		putFrame(pooled)
	}
	runtime.ReadMemStats(&after)
	if alloc := (after.TotalAlloc - before.TotalAlloc) / frames; alloc > 4<<10 {
		t.Errorf("%d bytes allocated per frame of %d put back", alloc, n)
	}
}

// TestReadFrameCut: a frame cut short is io.ErrUnexpectedEOF, whether no
// byte of it came, a few, or all but one, in each size class; another
// error of the reader is returned as it is.
func TestReadFrameCut(t *testing.T) {
	for _, n := range []int{1, 100, frameChunk, frameChunk + 1, 3 << 20, 20 << 20} {
		for _, got := range []int{0, 1, n / frameGrowth, n - 1} {
			if got >= n && n > 0 {
				continue
			}
			frame, _, err := readFrame(bytes.NewReader(make([]byte, got)), n)
			if err != io.ErrUnexpectedEOF || frame != nil {
				t.Errorf("%d of %d bytes: frame of %d, err %v, want io.ErrUnexpectedEOF", got, n, len(frame), err)
			}
		}
	}
	broken := errors.New("connection reset")
	for _, n := range []int{100, 3 << 20} {
		if _, _, err := readFrame(io.MultiReader(bytes.NewReader(make([]byte, n/2)), errReader{broken}), n); err != broken {
			t.Errorf("%d bytes: err %v, want %v", n, err, broken)
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// slowReader hands out its bytes 777 at a time, as a slow socket would.
type slowReader struct{ rest []byte }

func (r *slowReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 777)], r.rest)
	r.rest = r.rest[n:]
	return n, nil
}
