package filestore_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/server/filestore"
)

// pinned creates a file holding data and pins [off, off+n) of it.
func pinned(t *testing.T, s store.Storage, name string, data []byte, off int64, n int) (*filestore.File, *filestore.Range) {
	t.Helper()
	f, err := s.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Append(data); err != nil {
		t.Fatal(err)
	}
	sp, err := f.(store.Ranger).Span(off, n)
	if err != nil {
		t.Fatal(err)
	}
	return f.(*filestore.File), sp.(*filestore.Range)
}

func readAll(t *testing.T, r *filestore.Range) []byte {
	t.Helper()
	b, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSpanOutlivesClose: a pinned range is readable after its file is
// closed and removed (retention, compaction's swap, a descriptor cache);
// the file itself refuses use at once, and the descriptor closes with
// the last Release.
func TestSpanOutlivesClose(t *testing.T) {
	s := newFS(t)
	f, r := pinned(t, s, "seg.log", []byte("0123456789"), 2, 5)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("seg.log"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("ReadAt after Close: %v, want ErrClosed", err)
	}
	if _, err := f.Span(0, 1); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Span after Close: %v, want ErrClosed", err)
	}
	if got := readAll(t, r); string(got) != "23456" {
		t.Fatalf("pinned range read %q after close and remove", got)
	}
	fd := f.Descriptor()
	if _, err := fd.Stat(); err != nil {
		t.Fatalf("descriptor closed while pinned: %v", err)
	}
	if n := s.(*filestore.FS).Pinned(); n != 1 {
		t.Fatalf("%d ranges pinned, want 1", n)
	}
	r.Release()
	r.Release() // a no-op
	if n := s.(*filestore.FS).Pinned(); n != 0 {
		t.Fatalf("%d ranges pinned after Release, want 0", n)
	}
	if _, err := fd.Stat(); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("descriptor still open after the last Release: %v", err)
	}
}

// TestSpanUnderDescriptorBound: a pinned range's descriptor stays open
// past the bound (its file is in use) and closes, down to the bound,
// with the Release; the file opens again on its next use.
func TestSpanUnderDescriptorBound(t *testing.T) {
	s, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.SetMaxOpen(1)
	f, r := pinned(t, s, "a.log", []byte("0123456789"), 2, 5)
	g, err := s.Create("b.log")
	if err != nil {
		t.Fatal(err)
	}
	if open, _ := s.OpenDescriptors(); open != 2 {
		t.Fatalf("%d descriptors open, want 2: the pinned one and the new one", open)
	}
	if got := readAll(t, r); string(got) != "23456" {
		t.Fatalf("pinned range read %q past the bound", got)
	}
	r.Release()
	if open, _ := s.OpenDescriptors(); open != 1 || f.Descriptor() != nil {
		t.Fatalf("after Release: %d descriptors open, a.log's %v; want b.log's alone", open, f.Descriptor())
	}
	if err := g.Append([]byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 3)
	if _, err := f.ReadAt(buf, 0); err != nil || string(buf) != "012" {
		t.Fatalf("a.log opened again reads %q, %v", buf, err)
	}
}

// TestSpanCutByTruncate: a truncation into a pinned range (a log cut in
// place after an election) marks it short, even once new bytes fill the
// same positions; a range below the cut is still whole.
func TestSpanCutByTruncate(t *testing.T) {
	s := newFS(t)
	f, past := pinned(t, s, "seg.log", []byte("0123456789"), 4, 4)
	below, err := f.Span(0, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(6); err != nil {
		t.Fatal(err)
	}
	if err := f.Append([]byte("abcd")); err != nil {
		t.Fatal(err)
	}
	if _, err := past.ReadAll(); !errors.Is(err, filestore.ErrShort) {
		t.Fatalf("ReadAll of a cut range: %v, want ErrShort", err)
	}
	a, b := socketPair(t)
	defer a.Close()
	defer b.Close()
	if n, err := past.Sendfile(int(a.Fd()), 0, 4); n != 0 || !errors.Is(err, filestore.ErrShort) {
		t.Fatalf("Sendfile of a cut range sent %d: %v, want ErrShort", n, err)
	}
	if got := readAll(t, below.(*filestore.Range)); string(got) != "0123" {
		t.Fatalf("range below the cut read %q", got)
	}
	past.Release()
	below.Release()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSpanSendfileOffsets: two ranges of one file sent in turns, piece by
// piece, each at its own offset, arrive byte-exact; neither moves the
// other, nor the appends, which go on at the file's end.
func TestSpanSendfileOffsets(t *testing.T) {
	s := newFS(t)
	data := bytes.Repeat([]byte("abcdefghijklmnopqrstuvwxyz"), 400)
	f, r1 := pinned(t, s, "seg.log", data, 100, 5000)
	sp, err := f.Span(3000, 6000)
	if err != nil {
		t.Fatal(err)
	}
	r2 := sp.(*filestore.Range)
	a1, b1 := socketPair(t)
	a2, b2 := socketPair(t)
	for _, c := range []*os.File{a1, b1, a2, b2} {
		defer c.Close()
	}
	got1, got2 := make(chan []byte), make(chan []byte)
	go func() { g, _ := io.ReadAll(b1); got1 <- g }()
	go func() { g, _ := io.ReadAll(b2); got2 <- g }()
	at1, at2 := 0, 0
	for at1 < r1.Len() || at2 < r2.Len() {
		if at1 < r1.Len() {
			n, err := r1.Sendfile(int(a1.Fd()), int64(at1), min(777, r1.Len()-at1))
			if err != nil {
				t.Fatal(err)
			}
			at1 += n
		}
		if at2 < r2.Len() {
			if err := f.Append([]byte("tail")); err != nil {
				t.Fatal(err)
			}
			n, err := r2.Sendfile(int(a2.Fd()), int64(at2), min(1000, r2.Len()-at2))
			if err != nil {
				t.Fatal(err)
			}
			at2 += n
		}
	}
	a1.Close()
	a2.Close()
	if g := <-got1; !bytes.Equal(g, data[100:5100]) {
		t.Fatalf("first range: %d bytes, not the file's", len(g))
	}
	if g := <-got2; !bytes.Equal(g, data[3000:9000]) {
		t.Fatalf("second range: %d bytes, not the file's", len(g))
	}
	if _, err := r1.Sendfile(int(a1.Fd()), 4000, 2000); err == nil {
		t.Fatal("Sendfile past the range's end succeeded")
	}
	r1.Release()
	r2.Release()
	_ = f.Close()
}

// socketPair is a connected pair of stream sockets; a is blocking, so a
// Sendfile into it sends what was asked.
func socketPair(t *testing.T) (a, b *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fds[0]), "a"), os.NewFile(uintptr(fds[1]), "b")
}
