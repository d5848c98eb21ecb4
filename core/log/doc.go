// Package log is Kafka's partition log: a directory of segments, each a
// .log file of v2 RecordBatches with a sparse offset index (.index) and a
// sparse time index (.timeindex), laid out exactly as a Kafka broker lays
// out <log.dirs>/<topic>-<partition>/ (see Kafka's LogSegment, LocalLog,
// UnifiedLog and LogLoader).
//
// Segments are named by their base offset padded to 20 digits:
// 00000000000000000000.log, 00000000000000000000.index, ... An .index entry
// is 8 bytes (offset relative to the base as uint32, file position as
// uint32, big-endian); a .timeindex entry is 12 bytes (timestamp int64,
// relative offset uint32). Following LogSegment.append, after more than
// index.interval.bytes have been appended since the last entry, the next
// batch gets an offset index entry (its last offset, its position) and the
// time index gets (largest timestamp so far, last offset of the batch that
// has it) if that timestamp grew. Index files are append-only at their exact
// size; Kafka preallocates and memory-maps them, Gregor keeps their bytes in
// memory instead and appends each new entry to its file. On a storage
// where touching a file costs a descriptor (store.IndexesAtSync: the disk)
// the entries wait for the segment's sync (a flush, its roll, Close), so
// an append writes only the .log; after an unclean shutdown the active
// segment's indexes are rebuilt from the log, as Kafka rebuilds those past
// the recovery point.
//
// Lookups follow Kafka: a binary search over the segment list, then over
// the offset index for the largest entry <= the target, then a forward scan
// of batch headers. Kafka also searches the "warm" tail of an index first to
// keep it in the page cache; with the index in memory Gregor does not.
//
// Transactions add two kinds of files (KIP-98). A segment's aborted
// transaction index, <base>.txnindex, holds one 34-byte entry per aborted
// transaction whose abort marker is in the segment (version int16,
// producer id, first offset, last offset, last stable offset; Kafka's
// TransactionIndex); it is created on its first entry, loaded at Open,
// trimmed by truncation, deleted with its segment, and deleted and
// reported (TxnIndexSuspect) when it fails its checks. Producer state
// snapshots, <offset>.snapshot, are opaque bytes from the owner's
// Snapshotter, written at every roll and at Close; Open drops those outside
// [first segment base, log end], retention those below the first segment,
// truncation those past the new end. Scan lets the owner replay the log
// from a snapshot to rebuild its state and the entries of a lost index.
//
// The package is pure: storage comes in as store.Storage and time as `now`
// (Unix milliseconds), so the same log runs on disk (server/filestore) and
// in the browser (store.Mem). Deleting a segment removes its files at once;
// Kafka renames them to .deleted and removes them after
// file.delete.delay.ms.
//
// # Invariants
//
//   - Segments are sorted by base offset; each segment's batches have
//     strictly increasing offsets in [base, next base); the last segment is
//     the active one and the only one that takes appends.
//   - Offsets only grow: a new segment starts at the previous one's next
//     offset and recovery deletes every segment after a torn one, but
//     compaction (compact.go) removes batches and records, so there are
//     gaps, and a compacted batch may hold fewer records than its offset
//     span (record.ValidateStored).
//   - The cleaner never touches the active segment nor offsets at or above
//     the owner's bound (the last stable offset); a cleaned segment
//     replaces the old one through <base>.log.cleaned then .swap, and
//     every operation that removes or truncates segments first abandons a
//     pass in progress.
//   - StartOffset() <= EndOffset(); the first segment's base <=
//     StartOffset(), and every segment but the active one holds at least one
//     offset >= StartOffset().
//   - In-memory index bytes equal the index file's bytes; offset index
//     entries strictly increase in offset and position, time index entries
//     never decrease in timestamp.
//   - Every segment other than the active one was synced when it was
//     rolled; the files of the active segment are synced by Flush.
//   - Append and Read never decode individual records; only timestamp
//     lookups do. ReadExtent with pin hands out a Span of a segment file
//     that can pin (store.Ranger) after reading only the batch headers
//     (read.go); Read and an unpinned ReadExtent return the same bytes
//     from the same walk.
//   - .txnindex entries of a segment have markers inside it, in strictly
//     increasing offset order; a snapshot's offset is between the first
//     segment's base and the log end, and a snapshot written at a roll
//     covers only synced batches.
//   - Nothing decoded from storage is trusted unchecked, since a byte may
//     flip at rest: recovery checks the active segment's batches (and the
//     tail of the others), the cleaner and Scan check every batch's CRC
//     and offsets before they decode it, Read and Scan refuse a batch
//     whose offsets (outside the CRC) are out of sequence in its segment
//     (ErrCorrupt), an index entry that does not point at its batch makes
//     the lookup scan from the segment's start, and each .txnindex entry
//     is checked against its marker at Open. Read serves other batches
//     as stored: consumers check their CRCs.
//   - The log is not safe for concurrent use; its owner serializes calls.
package log
