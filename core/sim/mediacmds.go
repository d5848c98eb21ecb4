package sim

import (
	"fmt"
	"strconv"
)

// mediaVerbs are the forms of `disk` that model what a disk does wrong
// besides failing one call (store/memfaults.go). The world's seeded
// randomness picks what a tear keeps and which byte a flip changes, so a
// seed replays the same damage.
var mediaVerbs = map[string]func(w *World, n *Node, c command) error{
	// disk B full [room=BYTES]: every write past BYTES more (default 0)
	// fails with ENOSPC until space is freed or `disk B clear`.
	"full": func(w *World, n *Node, c command) error {
		room := int64(0)
		if v, ok := c.kv["room"]; ok {
			r, err := strconv.ParseInt(v, 10, 64)
			if err != nil || r < 0 {
				return fmt.Errorf("disk full: room=%q is not a byte count", v)
			}
			room = r
		}
		n.Store.Fill(room)
		w.notef(n.Name, "note", "disk full: %d bytes left", n.Store.Free())
		return nil
	},
	// disk B tear: at B's next power loss (`crash B`) the unsynced writes
	// of each file reach the disk, the last one torn.
	"tear": func(w *World, n *Node, c command) error {
		n.Store.ArmTear(func(size int) int { return w.rng.IntN(size + 1) })
		w.notef(n.Name, "note", "disk tear armed: the next power loss tears the last unsynced write of each file")
		return nil
	},
	// disk B flip WHAT: one byte of a synced file matching WHAT changes
	// at rest, silently.
	"flip": func(w *World, n *Node, c command) error {
		what, err := c.arg(2, "partition or file")
		if err != nil {
			return err
		}
		names, sizes := n.Store.Synced(fileMatch(what))
		if len(names) == 0 {
			return fmt.Errorf("disk flip: %s has no synced file matching %q", n.Name, what)
		}
		i := w.rng.IntN(len(names))
		off, mask := w.rng.IntN(sizes[i]), byte(1+w.rng.IntN(255))
		if err := n.Store.Flip(names[i], off, mask); err != nil {
			return fmt.Errorf("disk flip: %w", err)
		}
		w.notef(n.Name, "note", "disk flip: byte %d of %s xor %#02x", off, names[i], mask)
		return nil
	},
}
