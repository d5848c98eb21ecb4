//go:build !linux

package bench

import "os/exec"

// dieWithParent is a no-op off Linux: a child outlives a crashed parent
// there (the kfake child still exits when its stdin closes).
func dieWithParent(cmd *exec.Cmd) {}
