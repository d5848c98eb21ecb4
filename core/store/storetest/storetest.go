// Package storetest is the conformance suite every store.Storage passes, so
// the in-memory store and the file store behave the same under the log (the
// way nats-server runs each store test on its memory and file stores).
package storetest

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/gregor-kafka/gregor/core/store"
)

// Run runs every conformance case on a fresh storage from newStorage.
func Run(t *testing.T, newStorage func(t *testing.T) store.Storage) {
	cases := []struct {
		name string
		fn   func(t *testing.T, s store.Storage)
	}{
		{"CreateAppendRead", testCreateAppendRead},
		{"CreateExisting", testCreateExisting},
		{"CreateWithoutParent", testCreateWithoutParent},
		{"OpenMissing", testOpenMissing},
		{"OpenSeesAppends", testOpenSeesAppends},
		{"ReadAtPastEnd", testReadAtPastEnd},
		{"Truncate", testTruncate},
		{"Sync", testSync},
		{"CloseTwice", testCloseTwice},
		{"List", testList},
		{"ListMissing", testListMissing},
		{"Rename", testRename},
		{"RenameMissing", testRenameMissing},
		{"Remove", testRemove},
		{"RemoveAll", testRemoveAll},
		{"WriteFileReadFile", testWriteFileReadFile},
		{"ReadFileMissing", testReadFileMissing},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newStorage(t)) })
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func create(t *testing.T, s store.Storage, name string) store.File {
	t.Helper()
	f, err := s.Create(name)
	must(t, err)
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func readAll(t *testing.T, f store.File) []byte {
	t.Helper()
	p := make([]byte, f.Size())
	n, err := f.ReadAt(p, 0)
	if err != nil && !(errors.Is(err, io.EOF) && n == len(p)) {
		t.Fatalf("ReadAt: n=%d err=%v", n, err)
	}
	return p[:n]
}

func testCreateAppendRead(t *testing.T, s store.Storage) {
	must(t, s.MkdirAll("p-0"))
	f := create(t, s, "p-0/a.log")
	if f.Size() != 0 {
		t.Fatalf("new file size %d", f.Size())
	}
	must(t, f.Append([]byte("hello ")))
	must(t, f.Append([]byte("world")))
	if f.Size() != 11 {
		t.Fatalf("size %d, want 11", f.Size())
	}
	p := make([]byte, 5)
	if _, err := f.ReadAt(p, 6); err != nil || string(p) != "world" {
		t.Fatalf("ReadAt = %q, %v", p, err)
	}
	// ReadAt copies out: changing the result does not change the file.
	p[0] = 'X'
	if got := readAll(t, f); string(got) != "hello world" {
		t.Fatalf("content %q", got)
	}
	// Appending after a read keeps going at the end.
	must(t, f.Append([]byte("!")))
	if got := readAll(t, f); string(got) != "hello world!" {
		t.Fatalf("content %q", got)
	}
}

func testCreateExisting(t *testing.T, s store.Storage) {
	create(t, s, "x")
	if _, err := s.Create("x"); !errors.Is(err, store.ErrExist) {
		t.Fatalf("Create existing: %v, want ErrExist", err)
	}
}

func testCreateWithoutParent(t *testing.T, s store.Storage) {
	if _, err := s.Create("nodir/x"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("Create without parent: %v, want ErrNotExist", err)
	}
}

func testOpenMissing(t *testing.T, s store.Storage) {
	if _, err := s.Open("missing"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("Open missing: %v, want ErrNotExist", err)
	}
}

func testOpenSeesAppends(t *testing.T, s store.Storage) {
	f := create(t, s, "x")
	must(t, f.Append([]byte("abc")))
	must(t, f.Sync())
	must(t, f.Close())
	g, err := s.Open("x")
	must(t, err)
	defer g.Close()
	if g.Size() != 3 {
		t.Fatalf("reopened size %d", g.Size())
	}
	must(t, g.Append([]byte("def")))
	if got := readAll(t, g); string(got) != "abcdef" {
		t.Fatalf("content %q", got)
	}
}

func testReadAtPastEnd(t *testing.T, s store.Storage) {
	f := create(t, s, "x")
	must(t, f.Append([]byte("abc")))
	p := make([]byte, 5)
	n, err := f.ReadAt(p, 1)
	if n != 2 || err == nil {
		t.Fatalf("short ReadAt: n=%d err=%v, want 2 and an error", n, err)
	}
	if string(p[:n]) != "bc" {
		t.Fatalf("short ReadAt read %q", p[:n])
	}
	if n, err := f.ReadAt(p, 10); n != 0 || err == nil {
		t.Fatalf("ReadAt past end: n=%d err=%v", n, err)
	}
}

func testTruncate(t *testing.T, s store.Storage) {
	f := create(t, s, "x")
	must(t, f.Append([]byte("0123456789")))
	must(t, f.Truncate(4))
	if f.Size() != 4 {
		t.Fatalf("size after truncate %d", f.Size())
	}
	must(t, f.Append([]byte("xy")))
	if got := readAll(t, f); string(got) != "0123xy" {
		t.Fatalf("content %q", got)
	}
	must(t, f.Truncate(0))
	if got := readAll(t, f); len(got) != 0 {
		t.Fatalf("content after truncate(0) %q", got)
	}
}

func testSync(t *testing.T, s store.Storage) {
	f := create(t, s, "x")
	must(t, f.Sync())
	must(t, f.Append([]byte("abc")))
	must(t, f.Sync())
	if f.Size() != 3 {
		t.Fatalf("size %d", f.Size())
	}
}

func testCloseTwice(t *testing.T, s store.Storage) {
	f, err := s.Create("x")
	must(t, err)
	must(t, f.Close())
	if err := f.Close(); err == nil {
		t.Fatal("second Close succeeded")
	}
	if err := f.Append([]byte("a")); err == nil {
		t.Fatal("Append after Close succeeded")
	}
}

func testList(t *testing.T, s store.Storage) {
	must(t, s.MkdirAll("t-0/sub"))
	for _, n := range []string{"t-0/b", "t-0/a", "t-0/c"} {
		must(t, s.WriteFile(n, nil))
	}
	got, err := s.List("t-0")
	must(t, err)
	if want := []string{"a", "b", "c", "sub"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("List = %q, want %q", got, want)
	}
	root, err := s.List("")
	must(t, err)
	if !reflect.DeepEqual(root, []string{"t-0"}) {
		t.Fatalf("List root = %q", root)
	}
}

func testListMissing(t *testing.T, s store.Storage) {
	got, err := s.List("nothing-here")
	if err != nil || len(got) != 0 {
		t.Fatalf("List missing = %q, %v; want empty", got, err)
	}
}

func testRename(t *testing.T, s store.Storage) {
	must(t, s.WriteFile("a", []byte("A")))
	must(t, s.WriteFile("b", []byte("B")))
	must(t, s.Rename("a", "b"))
	if _, err := s.ReadFile("a"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("old name still readable: %v", err)
	}
	got, err := s.ReadFile("b")
	must(t, err)
	if string(got) != "A" {
		t.Fatalf("renamed content %q", got)
	}
	must(t, s.Rename("b", "c"))
	names, err := s.List("")
	must(t, err)
	if !reflect.DeepEqual(names, []string{"c"}) {
		t.Fatalf("List after renames = %q", names)
	}
}

func testRenameMissing(t *testing.T, s store.Storage) {
	if err := s.Rename("nope", "other"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("Rename missing: %v, want ErrNotExist", err)
	}
}

func testRemove(t *testing.T, s store.Storage) {
	must(t, s.WriteFile("x", []byte("1")))
	must(t, s.Remove("x"))
	if _, err := s.Open("x"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("Open removed: %v", err)
	}
	if err := s.Remove("x"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("Remove twice: %v, want ErrNotExist", err)
	}
	// A removed name can be created again, empty.
	f := create(t, s, "x")
	if f.Size() != 0 {
		t.Fatalf("recreated size %d", f.Size())
	}
}

func testRemoveAll(t *testing.T, s store.Storage) {
	must(t, s.MkdirAll("p-0/deep"))
	must(t, s.WriteFile("p-0/a", []byte("a")))
	must(t, s.WriteFile("p-0/deep/b", []byte("b")))
	must(t, s.WriteFile("p-1", []byte("keep")))
	must(t, s.RemoveAll("p-0"))
	if got, _ := s.List("p-0"); len(got) != 0 {
		t.Fatalf("List after RemoveAll = %q", got)
	}
	names, err := s.List("")
	must(t, err)
	if !reflect.DeepEqual(names, []string{"p-1"}) {
		t.Fatalf("root after RemoveAll = %q", names)
	}
	must(t, s.RemoveAll("p-0")) // missing is fine
}

func testWriteFileReadFile(t *testing.T, s store.Storage) {
	must(t, s.MkdirAll("meta"))
	must(t, s.WriteFile("meta/cp", []byte("first version")))
	must(t, s.WriteFile("meta/cp", []byte("v2")))
	got, err := s.ReadFile("meta/cp")
	must(t, err)
	if !bytes.Equal(got, []byte("v2")) {
		t.Fatalf("ReadFile = %q", got)
	}
	got[0] = 'X' // the result is a copy
	again, _ := s.ReadFile("meta/cp")
	if string(again) != "v2" {
		t.Fatalf("ReadFile result aliases storage: %q", again)
	}
	names, err := s.List("meta")
	must(t, err)
	if !reflect.DeepEqual(names, []string{"cp"}) {
		t.Fatalf("WriteFile left extra files: %q", names)
	}
	f, err := s.Open("meta/cp")
	must(t, err)
	defer f.Close()
	if f.Size() != 2 {
		t.Fatalf("opened size %d", f.Size())
	}
}

func testReadFileMissing(t *testing.T, s store.Storage) {
	if _, err := s.ReadFile("nope"); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("ReadFile missing: %v, want ErrNotExist", err)
	}
}
