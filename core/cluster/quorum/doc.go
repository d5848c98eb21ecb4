// Package quorum replicates the cluster metadata of package cluster on
// go.etcd.io/raft/v3 and runs the controller on the raft leader; see
// package cluster's documentation for the records, the elections and the
// invariants both packages keep.
//
// # Invariants
//
//   - Every quorum member applies the same batch at each raft index.
//   - Entries, hard state and snapshots are durable before Process returns
//     the messages that acknowledge them.
//   - Deterministic: no I/O but through store.Storage, no clock but Tick,
//     no goroutines; raft's own randomized election timeout is replaced by
//     one drawn from Config.Rand (see package cluster, Determinism).
package quorum
