//go:build !linux

package filestore

import "errors"

// Only Linux's syncfs reports the write-back errors of a whole
// filesystem; elsewhere every sync waits for its file.
type fence struct{}

func openFence(string) (fence, error) { return fence{}, errors.New("no syncfs") }
func (fence) syncfs() error           { return errors.New("no syncfs") }
func canSyncfs() bool                 { return false }
