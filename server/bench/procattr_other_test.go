//go:build !linux

package bench

import "os/exec"

// dieWithParent is a no-op off Linux: a child outlives a crashed parent
// there (the kfake child still exits when its stdin closes).
func dieWithParent(cmd *exec.Cmd) {}

// openFilesLimit is not read off Linux.
func openFilesLimit() string { return "unknown (not Linux)" }
