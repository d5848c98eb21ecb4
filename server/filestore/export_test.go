package filestore

import "os"

// Descriptor is the file's descriptor, for tests that check when it closes.
func (f *File) Descriptor() *os.File { return f.f }
