//go:build !linux

package cli

import "os"

// isTerminal is false off Linux: no progress line.
func isTerminal(*os.File) bool { return false }
