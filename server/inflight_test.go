package server

import (
	"bytes"
	"io"
	"runtime"
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
	runtime.ReadMemStats(&before)
	_, err := readFrame(io.LimitReader(bytes.NewReader(make([]byte, 1<<20)), 300<<10), announced)
	runtime.ReadMemStats(&after)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("err %v, want io.ErrUnexpectedEOF", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Fatalf("%d bytes allocated for a frame cut after 300 KiB", alloc)
	}
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	if frame, err := readFrame(&slowReader{data}, len(data)); err != nil || !bytes.Equal(frame, data) {
		t.Fatalf("a whole frame read in small pieces: err %v, equal %v", err, bytes.Equal(frame, data))
	}
}

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
