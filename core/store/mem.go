package store

import (
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// Mem is a Storage held in memory. It models a disk with a volatile write
// cache: appended bytes are readable at once but only survive Crash once
// Sync has been called on the file. WriteFile is durable immediately, as it
// syncs before returning on a real disk too.
//
// Mem is not safe for concurrent use; core is single-threaded.
type Mem struct {
	files map[string]*memNode
	dirs  map[string]bool
	open  []*memFile
}

type memNode struct {
	data   []byte
	synced int
}

// NewMem returns an empty in-memory storage whose root directory exists.
func NewMem() *Mem {
	return &Mem{files: map[string]*memNode{}, dirs: map[string]bool{".": true}}
}

func clean(name string) string { return path.Clean("/" + name)[1:] }

func norm(name string) string {
	n := clean(name)
	if n == "" {
		return "."
	}
	return n
}

func (m *Mem) parentExists(name string) bool { return m.dirs[path.Dir(name)] }

// Open opens an existing file.
func (m *Mem) Open(name string) (File, error) {
	name = norm(name)
	n, ok := m.files[name]
	if !ok {
		return nil, fmt.Errorf("open %s: %w", name, ErrNotExist)
	}
	return m.handle(name, n), nil
}

// Create creates an empty file; its parent directory must exist.
func (m *Mem) Create(name string) (File, error) {
	name = norm(name)
	if _, ok := m.files[name]; ok || m.dirs[name] {
		return nil, fmt.Errorf("create %s: %w", name, ErrExist)
	}
	if !m.parentExists(name) {
		return nil, fmt.Errorf("create %s: parent directory: %w", name, ErrNotExist)
	}
	n := &memNode{}
	m.files[name] = n
	return m.handle(name, n), nil
}

func (m *Mem) handle(name string, n *memNode) *memFile {
	f := &memFile{name: name, node: n}
	// Forget handles closed earlier so the list does not grow without bound.
	live := m.open[:0]
	for _, h := range m.open {
		if !h.closed {
			live = append(live, h)
		}
	}
	m.open = append(live, f)
	return f
}

// ReadFile returns a copy of a whole file.
func (m *Mem) ReadFile(name string) ([]byte, error) {
	name = norm(name)
	n, ok := m.files[name]
	if !ok {
		return nil, fmt.Errorf("read %s: %w", name, ErrNotExist)
	}
	return append([]byte(nil), n.data...), nil
}

// WriteFile replaces a file's content durably; its parent must exist.
func (m *Mem) WriteFile(name string, data []byte) error {
	name = norm(name)
	if !m.parentExists(name) {
		return fmt.Errorf("write %s: parent directory: %w", name, ErrNotExist)
	}
	if m.dirs[name] {
		return fmt.Errorf("write %s: is a directory: %w", name, ErrExist)
	}
	// Replace the node, as rename of a temporary file would: open handles
	// keep seeing the old content.
	d := append([]byte(nil), data...)
	m.files[name] = &memNode{data: d, synced: len(d)}
	return nil
}

// Remove deletes a file or an empty directory.
func (m *Mem) Remove(name string) error {
	name = norm(name)
	if _, ok := m.files[name]; ok {
		delete(m.files, name)
		return nil
	}
	if m.dirs[name] && name != "." {
		if len(m.children(name)) > 0 {
			return fmt.Errorf("remove %s: directory not empty", name)
		}
		delete(m.dirs, name)
		return nil
	}
	return fmt.Errorf("remove %s: %w", name, ErrNotExist)
}

// Rename moves a file (or a directory with its contents), replacing any
// file at newName.
func (m *Mem) Rename(oldName, newName string) error {
	oldName, newName = norm(oldName), norm(newName)
	if !m.parentExists(newName) {
		return fmt.Errorf("rename %s %s: parent directory: %w", oldName, newName, ErrNotExist)
	}
	if n, ok := m.files[oldName]; ok {
		if m.dirs[newName] {
			return fmt.Errorf("rename %s %s: target is a directory: %w", oldName, newName, ErrExist)
		}
		delete(m.files, oldName)
		m.files[newName] = n
		return nil
	}
	if !m.dirs[oldName] || oldName == "." {
		return fmt.Errorf("rename %s: %w", oldName, ErrNotExist)
	}
	if _, ok := m.files[newName]; ok || m.dirs[newName] {
		return fmt.Errorf("rename %s %s: %w", oldName, newName, ErrExist)
	}
	prefix := oldName + "/"
	for name, n := range m.files {
		if strings.HasPrefix(name, prefix) {
			delete(m.files, name)
			m.files[newName+"/"+name[len(prefix):]] = n
		}
	}
	for d := range m.dirs {
		if d == oldName || strings.HasPrefix(d, prefix) {
			delete(m.dirs, d)
			m.dirs[newName+d[len(oldName):]] = true
		}
	}
	return nil
}

// children lists the names directly under dir.
func (m *Mem) children(dir string) []string {
	var out []string
	add := func(p string) {
		var rest string
		if dir == "." {
			rest = p
		} else if strings.HasPrefix(p, dir+"/") {
			rest = p[len(dir)+1:]
		} else {
			return
		}
		if rest == "" || rest == "." {
			return
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[:i]
		}
		out = append(out, rest)
	}
	for p := range m.files {
		add(p)
	}
	for p := range m.dirs {
		add(p)
	}
	sort.Strings(out)
	// Deduplicate (a directory is reached through each of its files).
	uniq := out[:0]
	for i, s := range out {
		if i == 0 || s != out[i-1] {
			uniq = append(uniq, s)
		}
	}
	return uniq
}

// List returns the sorted names directly under dir; a missing dir is empty.
func (m *Mem) List(dir string) ([]string, error) {
	dir = norm(dir)
	if _, ok := m.files[dir]; ok {
		return nil, fmt.Errorf("list %s: not a directory", dir)
	}
	return m.children(dir), nil
}

// MkdirAll creates dir and its parents.
func (m *Mem) MkdirAll(dir string) error {
	dir = norm(dir)
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if _, ok := m.files[d]; ok {
			return fmt.Errorf("mkdir %s: %s is a file: %w", dir, d, ErrExist)
		}
	}
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		m.dirs[d] = true
	}
	return nil
}

// RemoveAll deletes dir (or a file) and everything under it. A missing
// path is not an error.
func (m *Mem) RemoveAll(dir string) error {
	dir = norm(dir)
	if dir == "." {
		m.files = map[string]*memNode{}
		m.dirs = map[string]bool{".": true}
		return nil
	}
	prefix := dir + "/"
	for p := range m.files {
		if p == dir || strings.HasPrefix(p, prefix) {
			delete(m.files, p)
		}
	}
	for d := range m.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(m.dirs, d)
		}
	}
	return nil
}

// Crash simulates a power loss: every file reverts to the bytes it had when
// last synced, and every open handle is closed (the process died with the
// machine). Files and directories themselves survive: Gregor treats file
// creation, removal and rename as durable metadata operations.
func (m *Mem) Crash() {
	for _, n := range m.files {
		n.data = n.data[:n.synced:n.synced]
	}
	for _, f := range m.open {
		f.closed = true
	}
	m.open = nil
}

// Unsynced reports how many bytes Crash would drop from the named file.
func (m *Mem) Unsynced(name string) int {
	if n, ok := m.files[norm(name)]; ok {
		return len(n.data) - n.synced
	}
	return 0
}

type memFile struct {
	name   string
	node   *memNode
	closed bool
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if f.closed {
		return 0, fmt.Errorf("read %s: %w", f.name, ErrClosed)
	}
	if off < 0 {
		return 0, fmt.Errorf("read %s: negative offset %d", f.name, off)
	}
	if off >= int64(len(f.node.data)) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := copy(p, f.node.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Append(p []byte) error {
	if f.closed {
		return fmt.Errorf("append %s: %w", f.name, ErrClosed)
	}
	f.node.data = append(f.node.data, p...)
	return nil
}

func (f *memFile) Size() int64 { return int64(len(f.node.data)) }

func (f *memFile) Truncate(n int64) error {
	if f.closed {
		return fmt.Errorf("truncate %s: %w", f.name, ErrClosed)
	}
	if n < 0 || n > int64(len(f.node.data)) {
		return fmt.Errorf("truncate %s to %d: size is %d", f.name, n, len(f.node.data))
	}
	f.node.data = f.node.data[:n]
	if f.node.synced > int(n) {
		f.node.synced = int(n)
	}
	return nil
}

func (f *memFile) Sync() error {
	if f.closed {
		return fmt.Errorf("sync %s: %w", f.name, ErrClosed)
	}
	f.node.synced = len(f.node.data)
	return nil
}

func (f *memFile) Close() error {
	if f.closed {
		return fmt.Errorf("close %s: %w", f.name, ErrClosed)
	}
	f.closed = true
	return nil
}

// Names lists every file, sorted, for views that show the data directory.
func (m *Mem) Names() []string {
	out := make([]string, 0, len(m.files))
	for name := range m.files {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Size is a file's length, or -1 if it does not exist.
func (m *Mem) Size(name string) int {
	if n, ok := m.files[norm(name)]; ok {
		return len(n.data)
	}
	return -1
}
