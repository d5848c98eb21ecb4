package bench

import (
	"fmt"
	"os"
	"testing"
)

const envDiskDir = "GREGOR_BENCH_DISK_DIR"

// diskDataDir is a fresh gregor data directory under GREGOR_BENCH_DISK_DIR
// (default /var/tmp; os.TempDir may be a tmpfs, where an fsync costs
// nothing), removed when b ends, and the filesystem that holds it. A
// benchmark that must measure a disk is skipped, loudly, on tmpfs or
// ramfs.
func diskDataDir(b *testing.B) (dir, fs string) {
	root := os.Getenv(envDiskDir)
	if root == "" {
		root = "/var/tmp"
	}
	fs = fsType(root)
	if fs == "tmpfs" || fs == "ramfs" {
		fmt.Printf("\n!!! %s: %s is on %s, not a disk: set %s to a directory on one !!!\n\n", b.Name(), root, fs, envDiskDir)
		b.Skipf("%s is on %s", root, fs)
	}
	dir, err := os.MkdirTemp(root, "gregor-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	return dir, fs
}
