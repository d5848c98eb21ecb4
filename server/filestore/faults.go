package filestore

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/gregor-kafka/gregor/core/store"
)

// FaultsEnv names the environment variable that arms storage faults in
// the real binary, for the end-to-end tests only: a ';'-separated list in
// store.ParseFaults's form, e.g. GREGOR_TEST_FAULTS="sync t-0/ nth=5".
// Never set it on a broker that holds data you care about.
const FaultsEnv = "GREGOR_TEST_FAULTS"

// faultSet is the armed faults of one FS, shared by its open files.
type faultSet struct {
	mu     sync.Mutex
	faults store.Faults
}

// Arm makes a chosen append or fsync of this storage fail with EIO or
// ENOSPC, for tests (see store.Fault). A failed fsync also drops the
// bytes appended since the file's last good sync, as if the kernel had
// evicted the pages it could not write: a later read, or a restart's
// recovery, does not find them.
func (s *FS) Arm(f store.Fault) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.faults.Arm(f)
}

// ArmFromEnv arms the faults FaultsEnv lists, if it is set, and returns
// them so the caller can log that they are armed.
func (s *FS) ArmFromEnv() ([]store.Fault, error) {
	spec := os.Getenv(FaultsEnv)
	if spec == "" {
		return nil, nil
	}
	faults, err := store.ParseFaults(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FaultsEnv, err)
	}
	for _, f := range faults {
		s.Arm(f)
	}
	return faults, nil
}

// check counts an operation on the file named name (relative to the root)
// and returns the injected error, wrapping the errno a disk would give,
// or nil.
func (fs *faultSet) check(op store.Op, name, path string) error {
	fs.mu.Lock()
	err := fs.faults.Check(op, name)
	fs.mu.Unlock()
	if err == nil {
		return nil
	}
	errno := syscall.EIO
	if errors.Is(err, store.ErrNoSpace) {
		errno = syscall.ENOSPC
	}
	return fmt.Errorf("%w (%w)", err, &os.PathError{Op: string(op), Path: path, Err: errno})
}
