package sim

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/store"
)

func init() { commands["disk"] = cmdDisk }

// brokerArg is the broker a command names first.
func (w *World) brokerArg(c command) (*Node, error) {
	name, err := c.arg(0, "broker")
	if err != nil {
		return nil, err
	}
	return w.node(name)
}

// cmdDisk: disk B fail <write|sync> WHAT [nth=N] [err=EIO|ENOSPC] arms a
// storage fault on broker B's disk: the Nth append or sync (default the
// next) of a file matching WHAT fails, once. WHAT is a partition (t-0:
// every file of its directory) or any part of a file name. `disk B` lists
// the faults still armed, `disk B clear` disarms them. What the broker
// does about a failed write or sync is in core/broker/storage_failure.go:
// the partition goes offline there and nothing that waited for the failed
// sync is acknowledged; a broker of a cluster also reports its log dir
// offline to the controller and halts (log_dir_failure.go). `disk B full`, `tear` and `flip` are the disk's
// other misdeeds (mediacmds.go).
func cmdDisk(w *World, c command) error {
	n, err := w.brokerArg(c)
	if err != nil {
		return err
	}
	name := n.Name
	if len(c.args) == 1 {
		var armed []string
		for _, f := range n.Store.Faults() {
			armed = append(armed, f.String())
		}
		if free := n.Store.Free(); free >= 0 {
			armed = append(armed, fmt.Sprintf("full, %d bytes left", free))
		}
		if n.Store.TearArmed() {
			armed = append(armed, "tear at the next power loss")
		}
		if len(armed) == 0 {
			armed = append(armed, "none")
		}
		w.notef(name, "note", "disk faults armed: %s", strings.Join(armed, "; "))
		return nil
	}
	if len(c.args) == 2 && c.args[1] == "clear" {
		n.Store.Disarm()
		w.notef(name, "note", "disk faults cleared")
		return nil
	}
	if len(c.args) >= 2 {
		if verb, ok := mediaVerbs[c.args[1]]; ok {
			return verb(w, n, c)
		}
	}
	if len(c.args) != 4 || c.args[1] != "fail" {
		return fmt.Errorf("disk: want disk %s fail <write|sync|rename> <partition or file> [nth=N] [err=EIO|ENOSPC], disk %s full [room=BYTES], disk %s tear, disk %s flip <partition or file>, or disk %s clear", name, name, name, name, name)
	}
	words := []string{c.args[2], fileMatch(c.args[3])}
	for _, k := range c.keys {
		words = append(words, k+"="+c.kv[k])
	}
	f, err := store.ParseFault(words)
	if err != nil {
		return fmt.Errorf("disk: %w", err)
	}
	n.Store.Arm(f)
	w.notef(name, "note", "disk fault armed: %s", f)
	return nil
}

// fileMatch turns a command's WHAT into a file name substring: a
// partition (t-0) stands for the files of its directory.
func fileMatch(what string) string {
	if !strings.ContainsAny(what, "/.") {
		return what + "/"
	}
	return what
}
