// Package producer is one partition's producer state, Kafka's
// ProducerStateManager and ProducerAppendInfo (KIP-98): for every producer
// id that wrote to the partition, its epoch, the sequence and offset ranges
// of its last five batches, the first offset of its open transaction and
// the epoch of the transaction coordinator that last wrote a marker for it.
//
// The broker asks CheckAppend before it appends a client batch (is it a
// retry of one of the last five batches, does its sequence follow, is its
// epoch current?) and CheckMarker before it appends a transaction marker;
// it calls Apply after every append, and the log recovery calls Apply for
// every batch it replays. The open transactions give the last stable
// offset (LSO): no read_committed consumer reads past the first offset of
// a transaction that is still open.
//
// The rules, as Kafka 3.x/4.x applies them to Produce:
//
//   - A batch whose producer epoch and exact sequence range match one of
//     the producer's last five batches is a duplicate (a retry whose first
//     answer was lost): it is not appended and is answered with the
//     original base offset and error NONE. Five is the most requests a
//     producer keeps in flight per partition (max.in.flight = 5).
//   - An epoch below the producer's current one gets INVALID_PRODUCER_EPOCH.
//     Before Kafka 2.7 transactional producers got PRODUCER_FENCED here;
//     KIP-588 replaced it on Produce so the client can abort and retry, and
//     PRODUCER_FENCED now comes only from the transaction coordinator.
//   - A higher epoch (an epoch bump, KIP-360) must start at sequence 0.
//   - In the same epoch the first sequence must be the last one plus 1,
//     wrapping from MaxInt32 to 0; otherwise OUT_OF_ORDER_SEQUENCE_NUMBER.
//   - A producer the partition does not know (never seen, or expired) may
//     start at any sequence. Since KIP-360 (Kafka 2.5) brokers no longer
//     answer Produce with UNKNOWN_PRODUCER_ID; the state rebuilt from
//     snapshots and the log is what protects retries across restarts.
//   - A non-transactional batch from a producer with an open transaction
//     gets INVALID_TXN_STATE.
//   - A marker whose coordinator epoch is below the recorded one gets
//     TRANSACTION_COORDINATOR_FENCED; a marker whose producer epoch is
//     below the current one gets INVALID_PRODUCER_EPOCH. Under
//     transaction version 2 (KIP-890) the coordinator bumps the epoch before
//     writing markers, so the marker's epoch must be above the current one,
//     except for the retry of a marker already written.
//
// # Invariants
//
//   - Each entry holds at most five batches, all of its current epoch, in
//     append order; sequences within an epoch only grow (modulo the wrap).
//   - An entry has an open transaction iff it appears in the list of open
//     transactions, exactly once, at its first offset; that list is sorted
//     by first offset.
//   - The last stable offset never exceeds the high watermark passed in,
//     nor the first offset of any open transaction.
//   - Applying the same batches in the same order to a fresh State, or to
//     a State loaded from a snapshot taken in the middle, gives equal states.
//   - The package is pure: no I/O, no clock, no randomness.
package producer
