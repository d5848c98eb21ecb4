// Package filestore implements store.Storage on real files, for the native
// broker. The log package lays Kafka's own directory layout on top of it
// (<topic>-<partition>/00000000000000000000.log, .index, .timeindex), so a
// Gregor data directory looks like a Kafka log.dirs entry.
//
// Appends go through a descriptor opened with O_APPEND; ReadAt is pread(2);
// Sync is fsync(2), or, in a batch a broker's Close opens, one syncfs(2)
// for all of them (sync_batch.go). WriteFile writes a temporary file, fsyncs it, renames it
// over the target and fsyncs the directory, which is how Kafka writes its
// checkpoint files (Utils.atomicMoveWithFallback + flushDir).
//
// # Invariants
//
//   - Every path handed to the OS is root joined with a cleaned,
//     slash-separated relative name; ".." cannot climb above root.
//   - A file's Size is tracked in memory: it is the size at Open plus every
//     byte appended since, minus truncations, so it never needs a stat.
//   - Errors wrap store.ErrNotExist / store.ErrExist (errors.Is works) and the
//     underlying *os.PathError.
//   - A File hands out pinned Ranges of itself (store.Ranger, span.go),
//     which the fetch path sends with sendfile(2) at explicit offsets. A
//     pinned range stays readable through Close (deferred to the last
//     Release) and Remove (the inode outlives its name); a Truncate into
//     it marks it cut, and a cut range is never sent.
//   - The package passes storetest.Run and the log's logtest suite.
package filestore
