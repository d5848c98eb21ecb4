// Package txn is Kafka's transaction coordinator (KIP-98) as a pure state
// machine: Kafka's TransactionCoordinator, TransactionStateManager and the
// decision half of TransactionMarkerChannelManager.
//
// Every transactional.id lives on partition
// Utils.abs(transactionalId.hashCode()) % transaction.state.log.num.partitions
// of __transaction_state, whose leader is its coordinator. Each change of a
// transaction is first written there as a record in Kafka's own schema
// (TxnMetadataKey v0, TxnMetadataValue v0), and only then takes effect, so
// a coordinator that restarts rebuilds every transaction by replaying the
// log (Replay, then Recover).
//
// The life of a transaction, as the seeds tell it:
//
//	InitProducerId   Empty            pid allocated, epoch bumped, the older
//	                                  instance fenced (its open transaction
//	                                  aborted first: CONCURRENT_TRANSACTIONS)
//	AddPartitionsToTxn / AddOffsetsToTxn
//	                 Ongoing          partitions recorded, the timer starts
//	EndTxn           PrepareCommit    the decision is durable: from here the
//	                 / PrepareAbort   transaction will finish even across a
//	                                  crash
//	(markers)                         WriteTxnMarkers to every partition's
//	                                  leader: a control batch, type 0 abort
//	                                  or 1 commit, with the coordinator epoch
//	                 CompleteCommit   written once every marker is in
//	                 / CompleteAbort
//
// A transaction that stays Ongoing longer than its transaction.timeout.ms
// is aborted by Tick with an epoch bump (PrepareEpochFence, then
// PrepareAbort), so the producer that carries on is fenced. Offsets sent
// with the transaction (AddOffsetsToTxn, then TxnOffsetCommit to the group
// coordinator, KIP-447) ride on the __consumer_offsets partition that the
// marker also reaches.
//
// The epoch rules follow KIP-360 (an InitProducerId that names its current
// producer id and epoch bumps the epoch instead of failing) and KIP-588
// (PRODUCER_FENCED from the coordinator; older request versions get
// INVALID_PRODUCER_EPOCH). KIP-890 part 1 (the leader verifies a
// transactional produce with the coordinator) is served by Verify and by
// AddPartitionsToTxn v4+ with VerifyOnly.
//
// Transaction version 2 (KIP-890 part 2, tv2.go), which clients use when
// the transaction.version feature is finalized at 2: a partition joins
// the transaction when its leader appends the first batch of a Produce
// v12 (Add, or AddPartitionsToTxn v5 from a remote leader), the group's
// partition when its coordinator takes a TxnOffsetCommit v5, and every
// EndTxn v5 bumps the epoch at the Prepare (the markers carry the new
// epoch, WriteTxnMarkers v2) and answers it; at the last epoch the
// producer moves to a new producer id (NextProducerID, switched to at
// Complete). A retried EndTxn v5 is told by its epoch, one below the
// current one (Kafka's retryOnEpochBump), which a coordinator that
// replayed the log knows too; a fence of a version 2 transaction
// therefore bumps twice (the fence's and the abort's), so the fenced
// producer never looks like a retry. A transaction of version 2 is
// written with value v1 and its tagged fields (ClientTransactionVersion,
// PreviousProducerId, NextProducerId); one of version 0/1 exactly as
// before.
//
// # Invariants
//
//   - A state change is applied to memory only after its record was
//     appended to __transaction_state; a failed append leaves the
//     transaction as it was.
//   - Markers are written only for a transaction whose Prepare record is
//     durable (Config.Durable: after the driver's sync on one broker, once
//     the ISR has it in a cluster; WriteMarkers runs from the broker's
//     Commit); Complete is written only after every partition answered
//     its marker, and a partition whose marker failed is sent it again
//     after markerRetryBackoffMs.
//   - A coordinator serves only the transactional ids of the
//     __transaction_state partitions its broker leads: Replay and Recover
//     load a partition when leadership comes, Unload forgets it when it
//     goes, and marker answers for an unloaded transaction are ignored.
//   - A transaction in PrepareCommit or PrepareAbort is never moved but to
//     the matching Complete state; every request that would change it gets
//     CONCURRENT_TRANSACTIONS until then.
//   - A transactional id's producer epoch never goes down, and a producer
//     id changes only when the epoch is exhausted.
//   - Under transaction version 2 no two transactions of a transactional
//     id share an epoch: the end of one is at a higher epoch than all of
//     its batches, so a batch or marker of an ended transaction is
//     refused by every partition and the coordinator.
//   - Replaying the records of a partition in order into a fresh
//     Coordinator gives the transactions the live one had after its last
//     durable write.
//   - The package is pure: no I/O, no clock, no goroutines, no randomness.
package txn
