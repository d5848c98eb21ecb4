package store

import (
	"fmt"
	"strings"
)

// What a disk does wrong besides failing one call (faults.go), as Mem
// models it for the simulator:
//
//   - a full disk: past a byte budget every append and WriteFile fails
//     with ErrNoSpace, until files are truncated or removed or the budget
//     is lifted (Fill, Unfill);
//   - torn writes: at the next Crash the unsynced appends of a file reach
//     the disk after all, the last of them only in part, as when a power
//     loss interrupts the page cache's write-back (ArmTear);
//   - bit rot: a byte of a file changes at rest, after it was synced, and
//     nothing reports it; only a checksum can tell (Flip).
//
// None of them happens in the file store: real disks do them on their own.
type media struct {
	full     bool
	capacity int64           // with full: the most bytes every file together may hold
	tear     func(n int) int // armed by ArmTear: how many bytes of an n-byte append survive
}

// room fails with ErrNoSpace when growing the files by grow bytes would pass
// a full disk's budget.
func (d *media) room(m *Mem, name string, grow int) error {
	if !d.full || grow <= 0 || m.used()+int64(grow) <= d.capacity {
		return nil
	}
	return fmt.Errorf("write %s: %d bytes: disk full (%d of %d bytes used): %w", name, grow, m.used(), d.capacity, ErrNoSpace)
}

// used is how many bytes the files hold together.
func (m *Mem) used() int64 {
	var n int64
	//purity:unordered sums sizes
	for _, f := range m.files {
		n += int64(len(f.data))
	}
	return n
}

// Fill makes the disk full but for room bytes: appends and WriteFiles that
// would grow the files past that fail with ErrNoSpace until space is freed
// (a truncation or a removal) or Unfill lifts the budget.
func (m *Mem) Fill(room int64) {
	m.media.full, m.media.capacity = true, m.used()+max(room, 0)
}

// Unfill lifts a full disk's budget.
func (m *Mem) Unfill() { m.media.full = false }

// Free reports the bytes left on a full disk, or -1 when it has no budget.
func (m *Mem) Free() int64 {
	if !m.media.full {
		return -1
	}
	return max(m.media.capacity-m.used(), 0)
}

// ArmTear makes the next Crash tear writes instead of dropping them: in
// each file, the appends since its last sync survive but the last one,
// which keeps cut(n) of its n bytes (0 <= cut(n) <= n; the caller's seeded
// randomness picks it). A file whose sync failed loses its unsynced bytes
// all the same. Disarm or a Crash disarms it.
func (m *Mem) ArmTear(cut func(n int) int) {
	m.media.tear = func(n int) int { return min(max(cut(n), 0), n) }
}

// TearArmed reports whether the next Crash tears writes.
func (m *Mem) TearArmed() bool { return m.media.tear != nil }

// Flip changes byte off of the named file at rest, xoring it with mask
// (non-zero), in its synced bytes: what the disk returns from then on, and
// what survives a Crash. It fails if the file does not exist or off is not
// a synced byte.
func (m *Mem) Flip(name string, off int, mask byte) error {
	n, ok := m.files[norm(name)]
	switch {
	case !ok:
		return fmt.Errorf("flip %s: %w", name, ErrNotExist)
	case off < 0 || off >= n.synced:
		return fmt.Errorf("flip %s: byte %d is not among its %d synced bytes", name, off, n.synced)
	case mask == 0:
		return fmt.Errorf("flip %s: a zero mask changes nothing", name)
	}
	n.data[off] ^= mask
	return nil
}

// Synced lists the files whose name contains match and that have synced
// bytes, sorted, with how many: the candidates for Flip.
func (m *Mem) Synced(match string) (names []string, sizes []int) {
	for _, name := range m.Names() {
		if n := m.files[name]; strings.Contains(name, match) && n.synced > 0 {
			names, sizes = append(names, name), append(sizes, n.synced)
		}
	}
	return names, sizes
}
