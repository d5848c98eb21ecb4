package server

import "syscall"

// diskSpace is the total and usable bytes of the volume holding dir, as
// DescribeLogDirs v4 reports them (KIP-827); -1 each when unknown.
func diskSpace(dir string) func() (total, usable int64) {
	return func() (int64, int64) {
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			return -1, -1
		}
		return int64(st.Blocks) * int64(st.Bsize), int64(st.Bavail) * int64(st.Bsize)
	}
}
