// Package store is the storage interface under Kafka's log, and its in-memory
// implementation.
//
// A Storage is a tree of named files, addressed by slash-separated paths
// relative to the broker's data directory ("orders-0/00000000000000000000.log").
// The log package lays Kafka's files out on top of it, so the memory store and
// the file store (server/filestore) hold the very same layout, and a lesson in
// the browser can show the same file names a broker writes to disk.
//
// # Invariants
//
//   - Writes land at the end of a file (Append) or replace it whole
//     (WriteFile); the log never overwrites bytes in the middle of a file.
//   - Bytes appended are readable at once; Sync makes them survive a crash of
//     the machine. Mem.Crash drops whatever was not synced, as a power loss
//     would, which lets the simulator test recovery.
//   - Every implementation passes storetest.Run.
//   - Injected faults (faults.go) exist for tests only: Mem.Arm in the
//     simulator, the file store's GREGOR_TEST_FAULTS in the end-to-end
//     tests. A fault fires once; a Mem sync that failed loses its
//     unsynced bytes at the next Crash even if a later sync succeeds.
//   - Mem also models a full disk (ENOSPC past a byte budget), torn
//     writes at a Crash and bytes flipped at rest (memfaults.go); the
//     caller's seeded randomness picks what a tear keeps and which byte
//     flips, so a simulation replays the same damage.
package store
