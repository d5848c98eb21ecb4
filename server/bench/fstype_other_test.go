//go:build !linux

package bench

// fsType is not known off Linux.
func fsType(dir string) string { return "unknown (not Linux)" }
