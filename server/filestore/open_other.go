//go:build !unix

package filestore

import "os"

// openFile is os.OpenFile where unix.Open is not there (open_unix.go).
func openFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(name, flag, perm)
}
