// Package broker is Kafka's broker as a pure state machine: topics,
// partitions and the request handlers.
//
// Each Kafka API is one descriptor (api, handlers.go), registered by the
// API's file (produce.go: Produce, key 0; join_group.go: JoinGroup, key
// 11): the versions served, which ApiVersions reports, the handler, the
// rule that authorizes a client's request (authorize.go), and, for the
// coordinators' APIs, the group or transactional id that routes it. How a learner reads
// the API and how it answers with an error live in its files of
// core/describe and core/wire. Adding an API is a file here, and one
// there where the generic text or error answer will not do.
//
// A driver (the native server, or the simulator) owns a Broker and calls it
// from one goroutine: Handle for each decoded request, Tick when time moves,
// and Commit after a batch of requests. The broker calls nothing back: its
// answers, and in a cluster its requests to other nodes, are data it
// appends to an outbox, which the driver takes with Ready after each call
// and carries out in order (ready.go), as etcd raft's RawNode hands out a
// Ready. An answer may come in a later Ready than its request's: a
// long-poll Fetch waits in the purgatory until data arrives or its
// max.wait.ms passes, and a produce to a log that must be fsynced waits
// for the next Commit, which group-commits every dirty log with one sync
// each.
//
// # Invariants
//
//   - No I/O but through store.Storage, no clock but the now passed in, no
//     goroutines, no global randomness: the same inputs give the same outputs.
//   - Every request gets exactly one Response in a Ready, except Produce
//     with acks=0, which gets none (as in Kafka).
//   - Nothing the broker produces calls back into it: a Ready is data, and
//     its effects are handed over once, in the order they were produced.
//   - Responses to one connection are handed over in request order; the
//     driver relies on it only for ordering writes, and enforces it itself.
//   - A partition's high watermark never exceeds its log end offset and never
//     goes back, except when a failed write or sync takes the partition
//     offline: it is then cut back to what was synced; with a single
//     in-sync replica it equals the log end offset.
//   - Nothing that waited for a write or sync that failed is answered as a
//     success (KAFKA_STORAGE_ERROR, or NOT_COORDINATOR from a coordinator),
//     and nothing that depends on it (a marker after a Prepare record, a
//     Complete record after a marker) is written; the partition takes no
//     more appends and is never synced again until a restart recovers it
//     (storage_failure.go).
//   - A partition's last stable offset never exceeds its high watermark
//     nor the first offset of an open transaction; a producer's batch is
//     appended at most once per (producer id, epoch, sequence) among its
//     last five batches, across restarts (see core/producer).
//   - A group or transactional id is served only by the broker leading
//     its __consumer_offsets or __transaction_state partition (others
//     answer NOT_COORDINATOR), and an answer that depends on a write to
//     those partitions, to a transaction marker, or to an acks=all produce
//     goes out only once the write is durable: synced when the flush
//     policy asks, and in a cluster in every ISR member (acks.go).
//   - A clustered broker opens no replica into storage that belongs to
//     another cluster (cluster_id.go), nor into a partition directory
//     that names another topic id (partition_metadata.go).
//   - A clustered broker waits for no answer past a bound that keeps it
//     available: a heartbeat or registration is asked again after
//     broker.heartbeat.interval.ms (well inside its session), a follower's
//     fetch after replica.fetch.wait.max.ms + replica.fetch.backoff.ms, and
//     whatever it asked a controller that is no longer active fails at
//     once when the driver reports the move (ControllerMoved), to be asked
//     of the new one; the rest after replica.socket.timeout.ms.
//   - A client over a quota is answered with throttle_time_ms (KIP-219)
//     and what it used stays measured, except a throttled Fetch, which
//     carries no data and is not counted (client_quotas.go); a strict
//     controller mutation quota refuses a topic only while the client's
//     bucket is in debt, and a refused topic is neither created, grown,
//     deleted nor sent on to the quorum controller (mutation_quota.go).
//   - In a cluster, what only the controller serves is forwarded unread
//     and unauthorized in an Envelope with the client's principal; the
//     active controller's node checks the sender's CLUSTER_ACTION,
//     authorizes it and counts its mutations, and never forwards it
//     again (envelope.go, KIP-590).
//   - An API key is registered once, with all of it (register panics on
//     a second); there is no per-API switch outside the API's file.
//   - The authorized operations a describing answer carries (KIP-430)
//     are computed in one place, as the answer is queued for the driver
//     (authorized_ops.go).
//   - Kafka errors travel as ErrorCode fields (pkg/kerr codes), never as Go
//     errors; Go errors returned by this package mean storage failed.
package broker
