//go:build unix

package server

import (
	"math"
	"syscall"
)

// storageDescriptors is how many descriptors the storage's segment and
// index files may hold open: three quarters of the open-files limit (Go
// raises the soft limit to the hard one at start), leaving the rest to
// client and peer connections; 0, no bound, where the limit is unlimited
// or unknown (filestore/descriptors.go).
func storageDescriptors() (bound int, limit uint64) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == math.MaxUint64 || rl.Cur > math.MaxInt32 {
		return 0, rl.Cur
	}
	return max(64, int(rl.Cur*3/4)), rl.Cur
}
