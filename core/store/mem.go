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
// Faults armed with Arm make chosen appends or syncs fail (faults.go). A
// failed sync models what Linux does after fsync reports EIO: the dirty
// pages are dropped from the write cache, so the bytes past the last good
// sync are lost at the next Crash even if a later sync succeeds.
//
// Mem is not safe for concurrent use; core is single-threaded.
type Mem struct {
	files  map[string]*memNode
	dirs   map[string]bool
	kids   map[string]map[string]bool // directory → names of its entries
	faults Faults
	media  media // a full disk, torn writes, bit flips (memfaults.go)
}

type memNode struct {
	data    []byte
	synced  int
	lostAt  int        // -1, or where a failed sync left the durable bytes
	lastAt  int        // -1, or where the last append since the last sync began
	handles []*memFile // open handles, closed by Crash
}

// Arm makes a chosen append or sync fail (see Fault).
func (m *Mem) Arm(f Fault) { m.faults.Arm(f) }

// Disarm drops every armed fault, a full disk's budget and torn writes.
func (m *Mem) Disarm() { m.faults, m.media = Faults{}, media{} }

// Faults lists the armed faults that have not fired yet.
func (m *Mem) Faults() []Fault { return m.faults.Armed() }

// NewMem returns an empty in-memory storage whose root directory exists.
func NewMem() *Mem {
	return &Mem{files: map[string]*memNode{}, dirs: map[string]bool{".": true}, kids: map[string]map[string]bool{}}
}

// link records p as an entry of its directory; unlink forgets it. They keep
// List proportional to the directory, not to the whole store.
func (m *Mem) link(p string) {
	dir := path.Dir(p)
	if m.kids[dir] == nil {
		m.kids[dir] = map[string]bool{}
	}
	m.kids[dir][path.Base(p)] = true
}

func (m *Mem) unlink(p string) {
	dir := path.Dir(p)
	delete(m.kids[dir], path.Base(p))
	if len(m.kids[dir]) == 0 {
		delete(m.kids, dir)
	}
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
	n := &memNode{lostAt: -1, lastAt: -1}
	m.files[name] = n
	m.link(name)
	return m.handle(name, n), nil
}

func (m *Mem) handle(name string, n *memNode) *memFile {
	f := &memFile{name: name, node: n, m: m}
	// Forget handles closed earlier so the list does not grow without bound.
	live := n.handles[:0]
	for _, h := range n.handles {
		if !h.closed {
			live = append(live, h)
		}
	}
	n.handles = append(live, f)
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
	if err := m.media.room(m, name, len(data)-max(m.Size(name), 0)); err != nil {
		return err
	}
	d := append([]byte(nil), data...)
	m.files[name] = &memNode{data: d, synced: len(d), lostAt: -1, lastAt: -1}
	m.link(name)
	return nil
}

// Remove deletes a file or an empty directory.
func (m *Mem) Remove(name string) error {
	name = norm(name)
	if _, ok := m.files[name]; ok {
		delete(m.files, name)
		m.unlink(name)
		return nil
	}
	if m.dirs[name] && name != "." {
		if len(m.kids[name]) > 0 {
			return fmt.Errorf("remove %s: directory not empty", name)
		}
		delete(m.dirs, name)
		m.unlink(name)
		return nil
	}
	return fmt.Errorf("remove %s: %w", name, ErrNotExist)
}

// Rename moves a file (or a directory with its contents), replacing any
// file at newName.
func (m *Mem) Rename(oldName, newName string) error {
	oldName, newName = norm(oldName), norm(newName)
	if err := m.faults.Check(OpRename, oldName); err != nil {
		return err
	}
	if !m.parentExists(newName) {
		return fmt.Errorf("rename %s %s: parent directory: %w", oldName, newName, ErrNotExist)
	}
	if n, ok := m.files[oldName]; ok {
		if m.dirs[newName] {
			return fmt.Errorf("rename %s %s: target is a directory: %w", oldName, newName, ErrExist)
		}
		delete(m.files, oldName)
		m.unlink(oldName)
		m.files[newName] = n
		m.link(newName)
		return nil
	}
	if !m.dirs[oldName] || oldName == "." {
		return fmt.Errorf("rename %s: %w", oldName, ErrNotExist)
	}
	if _, ok := m.files[newName]; ok || m.dirs[newName] {
		return fmt.Errorf("rename %s %s: %w", oldName, newName, ErrExist)
	}
	// The names to move are listed before any moves: a range over a map
	// that adds to it may or may not meet what it added.
	prefix := oldName + "/"
	var files, dirs []string
	for name := range m.files {
		if strings.HasPrefix(name, prefix) {
			files = append(files, name)
		}
	}
	sort.Strings(files)
	for _, name := range files {
		n := m.files[name]
		delete(m.files, name)
		m.unlink(name)
		to := newName + "/" + name[len(prefix):]
		m.files[to] = n
		m.link(to)
	}
	for d := range m.dirs {
		if d == oldName || strings.HasPrefix(d, prefix) {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		delete(m.dirs, d)
		m.unlink(d)
		to := newName + d[len(oldName):]
		m.dirs[to] = true
		m.link(to)
	}
	return nil
}

// children lists the names directly under dir, sorted.
func (m *Mem) children(dir string) []string {
	out := make([]string, 0, len(m.kids[dir]))
	for name := range m.kids[dir] {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
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
		if !m.dirs[d] {
			m.dirs[d] = true
			m.link(d)
		}
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
		m.kids = map[string]map[string]bool{}
		return nil
	}
	prefix := dir + "/"
	//purity:unordered deletes only; order cannot matter
	for p := range m.files {
		if p == dir || strings.HasPrefix(p, prefix) {
			delete(m.files, p)
			m.unlink(p)
		}
	}
	//purity:unordered deletes only; order cannot matter
	for d := range m.dirs {
		if d == dir || strings.HasPrefix(d, prefix) {
			delete(m.dirs, d)
			m.unlink(d)
		}
	}
	return nil
}

// Crash simulates a power loss: every file reverts to the bytes it had when
// last synced, and every open handle is closed (the process died with the
// machine). Files and directories themselves survive: Gregor treats file
// creation, removal and rename as durable metadata operations. With torn
// writes armed (ArmTear), the unsynced appends of a file reach the disk
// instead, the last of them only in part.
func (m *Mem) Crash() {
	cut := m.media.tear
	m.media.tear = nil
	for _, name := range m.Names() {
		n := m.files[name]
		keep := n.synced
		switch {
		case n.lostAt >= 0:
			keep = min(keep, n.lostAt)
			n.lostAt = -1
		case cut != nil && n.lastAt >= 0:
			keep = n.lastAt + cut(len(n.data)-n.lastAt)
		}
		n.synced, n.lastAt = keep, -1
		n.data = n.data[:keep:keep]
		for _, f := range n.handles {
			f.closed = true
		}
		n.handles = nil
	}
}

// Kill simulates the process dying while the machine stays up: every open
// handle is closed, but what was written stays, as the operating system's
// page cache keeps it (the case Kafka's recovery usually meets).
func (m *Mem) Kill() {
	//purity:unordered closes handles; order cannot matter
	for _, n := range m.files {
		for _, f := range n.handles {
			f.closed = true
		}
		n.handles = nil
	}
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
	m      *Mem
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
	if err := f.m.faults.Check(OpWrite, f.name); err != nil {
		return err
	}
	if err := f.m.media.room(f.m, f.name, len(p)); err != nil {
		return err
	}
	f.node.lastAt = len(f.node.data)
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
	if f.node.lostAt >= int(n) {
		// The bytes a failed sync lost are gone from the file too: what
		// is appended from here on is new pages, which a sync writes.
		f.node.lostAt = -1
	}
	if f.node.lastAt >= int(n) {
		f.node.lastAt = -1
	}
	return nil
}

func (f *memFile) Sync() error {
	if f.closed {
		return fmt.Errorf("sync %s: %w", f.name, ErrClosed)
	}
	if err := f.m.faults.Check(OpSync, f.name); err != nil {
		if f.node.lostAt < 0 {
			f.node.lostAt = f.node.synced
		}
		return err
	}
	f.node.synced, f.node.lastAt = len(f.node.data), -1
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
