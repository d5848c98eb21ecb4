package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Injected storage failures, for tests only: the simulator arms them on
// Mem ("disk b0 fail sync t-0"), the end-to-end tests on the file store
// of the real binary (GREGOR_TEST_FAULTS, server/filestore). A fault makes
// one chosen append or sync fail the way a disk does, with EIO or ENOSPC,
// so that tests can check what a broker acknowledges when its disk lies.

// Errors an armed fault returns (the file store wraps the matching errno
// too, so errors.Is finds syscall.EIO or syscall.ENOSPC as well).
var (
	ErrIO      = errors.New("input/output error (EIO)")
	ErrNoSpace = errors.New("no space left on device (ENOSPC)")
)

// Op is the file operation a fault fails.
type Op string

// The operations a fault can fail: File.Append, File.Sync, and
// Storage.Rename (matched against the old name; the log cleaner's swap of
// a cleaned segment is a rename).
const (
	OpWrite  Op = "write"
	OpSync   Op = "sync"
	OpRename Op = "rename"
)

// Fault fails the Nth Op (counted from when it was armed) on a file whose
// name contains Match, once; later operations succeed again, as a real
// fsync that follows a failed one may (PostgreSQL's "fsyncgate").
type Fault struct {
	Op    Op
	Match string // a substring of the file's slash-separated name; "" is any file
	Nth   int    // 1 is the next matching operation
	Err   error  // ErrIO or ErrNoSpace
}

func (f Fault) String() string {
	errName := "EIO"
	if errors.Is(f.Err, ErrNoSpace) {
		errName = "ENOSPC"
	}
	return fmt.Sprintf("%s %s nth=%d err=%s", f.Op, f.Match, f.Nth, errName)
}

// ParseFault reads a fault from words: an op ("write" or "sync"), a file
// name substring, then optional nth=N (default 1) and err=EIO|ENOSPC
// (default EIO). "sync t-0/ nth=3" fails the third sync of t-0's files.
func ParseFault(words []string) (Fault, error) {
	if len(words) < 2 {
		return Fault{}, fmt.Errorf("store: fault %q: want <write|sync|rename> <file-substring> [nth=N] [err=EIO|ENOSPC]", strings.Join(words, " "))
	}
	f := Fault{Op: Op(words[0]), Match: words[1], Nth: 1, Err: ErrIO}
	if f.Op != OpWrite && f.Op != OpSync && f.Op != OpRename {
		return Fault{}, fmt.Errorf("store: fault: unknown operation %q (write, sync or rename)", words[0])
	}
	for _, w := range words[2:] {
		k, v, _ := strings.Cut(w, "=")
		switch k {
		case "nth":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return Fault{}, fmt.Errorf("store: fault: nth=%q is not a positive number", v)
			}
			f.Nth = n
		case "err":
			switch v {
			case "EIO":
				f.Err = ErrIO
			case "ENOSPC":
				f.Err = ErrNoSpace
			default:
				return Fault{}, fmt.Errorf("store: fault: err=%q (EIO or ENOSPC)", v)
			}
		default:
			return Fault{}, fmt.Errorf("store: fault: unknown option %q", w)
		}
	}
	return f, nil
}

// ParseFaults reads faults separated by ';', as GREGOR_TEST_FAULTS holds
// them: "sync t-0/ nth=5; write __transaction_state-0/ err=ENOSPC".
func ParseFaults(spec string) ([]Fault, error) {
	var out []Fault
	for _, part := range strings.Split(spec, ";") {
		words := strings.Fields(part)
		if len(words) == 0 {
			continue
		}
		f, err := ParseFault(words)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Faults is a set of armed faults. The zero value has none. It is not
// safe for concurrent use; the file store guards it with a mutex.
type Faults struct {
	armed []armedFault
}

type armedFault struct {
	Fault
	seen int // matching operations so far
}

// Arm adds a fault.
func (fs *Faults) Arm(f Fault) { fs.armed = append(fs.armed, armedFault{Fault: f}) }

// Armed lists the faults that have not fired yet.
func (fs *Faults) Armed() []Fault {
	out := make([]Fault, len(fs.armed))
	for i, a := range fs.armed {
		out[i] = a.Fault
	}
	return out
}

// Check counts one op on the named file against every armed fault and
// returns the error of the first that fires (it is then disarmed), or nil.
func (fs *Faults) Check(op Op, name string) error {
	var fired error
	kept := fs.armed[:0]
	for _, a := range fs.armed {
		if a.Op == op && strings.Contains(name, a.Match) {
			a.seen++
			if a.seen == a.Nth && fired == nil {
				fired = fmt.Errorf("%s %s: injected fault: %w", op, name, a.Err)
				continue
			}
		}
		kept = append(kept, a)
	}
	clear(fs.armed[len(kept):])
	fs.armed = kept
	return fired
}
