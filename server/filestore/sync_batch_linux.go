package filestore

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// fence is a descriptor of the data directory, opened when a batch opens:
// syncfs on it reports the filesystem's write-back errors since then.
type fence struct{ d *os.File }

func openFence(root string) (fence, error) {
	d, err := os.Open(root)
	return fence{d}, err
}

// syncfs writes back every dirty page and inode of the filesystem and
// closes the fence.
func (f fence) syncfs() error {
	defer f.d.Close()
	return unix.Syncfs(int(f.d.Fd()))
}

// canSyncfs: syncfs reports write-back errors from Linux 5.8 on (commit
// 735e4ae5ba28, "vfs: track per-sb writeback errors and report them to
// syncfs"); before, it returned 0 whatever happened.
var canSyncfs = sync.OnceValue(func() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	return releaseAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 8)
})

// releaseAtLeast reads a kernel release such as "6.18.0-1-amd64" or
// "5.10-rc2".
func releaseAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	leading := func(s string) string {
		if i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			return s[:i]
		}
		return s
	}
	maj, err1 := strconv.Atoi(parts[0])
	mnr, err2 := strconv.Atoi(leading(parts[1]))
	if err1 != nil || err2 != nil {
		return false
	}
	return maj > major || maj == major && mnr >= minor
}
