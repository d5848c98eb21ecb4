package store

import (
	"errors"
	"io"
)

// Sentinel errors shared by every implementation.
var (
	ErrNotExist = errors.New("store: file does not exist")
	ErrExist    = errors.New("store: file already exists")
	ErrClosed   = errors.New("store: file is closed")
)

// Storage is a tree of files. Paths use '/' and are relative to its root.
type Storage interface {
	// Open opens an existing file for reading and appending.
	Open(name string) (File, error)
	// Create creates an empty file, failing with ErrExist if it exists.
	Create(name string) (File, error)
	// ReadFile returns a whole small file (metadata, checkpoints).
	ReadFile(name string) ([]byte, error)
	// WriteFile atomically replaces a small file's content and syncs it.
	WriteFile(name string, data []byte) error
	// Remove deletes one file.
	Remove(name string) error
	// Rename moves a file, replacing any file at newName.
	Rename(oldName, newName string) error
	// List returns the sorted names of the entries directly under dir; a
	// directory that does not exist lists as empty.
	List(dir string) ([]string, error)
	// MkdirAll creates a directory and its parents.
	MkdirAll(dir string) error
	// RemoveAll deletes a directory and everything under it.
	RemoveAll(dir string) error
}

// IndexesAtSync is implemented by a Storage whose files cost more to
// touch than to keep writing: on disk each holds a descriptor, and past
// the bound on them touching one opens it again (server/filestore). A log
// on such a storage writes a segment's index entries when it syncs the
// segment, so that an append touches only the .log file. On any other
// storage each entry is written as it is made, where Kafka's
// memory-mapped index holds it at once (core/log/segment.go).
type IndexesAtSync interface{ IndexesAtSync() }

// File is an append-only file with random reads.
type File interface {
	io.ReaderAt
	// Append writes p at the end of the file. It keeps no reference to
	// p: callers reuse their buffers once it returns (a produce frame, a
	// follower's fetch answer).
	Append(p []byte) error
	// Size is the file's current length, including unsynced bytes.
	Size() int64
	// Truncate cuts the file to n bytes (n <= Size).
	Truncate(n int64) error
	// Sync makes everything appended so far durable.
	Sync() error
	Close() error
}
