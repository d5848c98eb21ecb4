// Package share is Kafka's share groups (KIP-932, Kafka 4's queues) as a
// pure state machine: membership with ShareGroupHeartbeat and the simple
// assignor (group.go), share sessions (session.go), and share partitions
// (partition.go): the window of in-flight records of one topic partition
// for one share group, each record available, acquired by one member
// until its lock expires, acknowledged or archived, with its delivery
// count. A share partition's persisted state (StateBatch: locks are not
// persisted) is kept by its share coordinator in __share_group_state, in
// the layout of Kafka's ShareSnapshot record (snapshot.go).
//
// The broker owns an Engine and calls it with decoded kmsg requests and
// its clock; it reads the log for the engine (Acquire's more function
// returns the batches as Spans). The engine's share partitions are the
// leader's cache of the coordinator's state: the broker restores one
// from its coordinator before serving it, writes those TakeDirty returns
// through it, and unloads them when leadership moves (KIP-932's
// share-partition leader and persister). A group's membership, epochs,
// assignment and Assigned partitions are written by its group
// coordinator to __consumer_offsets (core/group/share_records.go), which
// rebuilds them with LoadGroup and LoadMember when it loads the
// partition, and forgets them with Drop when the partition moves away.
//
// # Invariants
//
//   - Pure: no I/O, no clock but the now passed in, no goroutines; maps are
//     read in sorted order wherever the order shows.
//   - A record is held by at most one member at a time: only an Available
//     record is acquired, and only its holder may acknowledge it.
//   - A record is delivered at most group.share.delivery.count.limit
//     times: released (by the member or by its lock expiring) at the limit,
//     it is archived.
//   - Start (the SPSO) only moves forward, past records acknowledged or
//     archived; the window [Start, End) never holds more than
//     group.share.partition.max.record.locks records.
//   - Acknowledgements of one partition apply all or none.
package share
