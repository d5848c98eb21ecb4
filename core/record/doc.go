// Package record reads and validates Kafka's v2 RecordBatch (KIP-98) as bytes.
//
// The broker never decodes individual records on the hot path: it checks a
// batch's header and CRC-32C, stamps its base offset, and stores the bytes as
// they came. Only lookups by timestamp and teaching views decode records
// (Batch.Records), decompressing gzip, snappy (raw or xerial-framed, as
// Kafka's Java client writes it), lz4 (frame format) and zstd (KIP-110) with a
// bound of MaxDecompressedSize. Builder and AppendBatch encode uncompressed
// batches for tests and simulated clients, the way a producer's
// RecordAccumulator does (record fields as in Kafka's DefaultRecord).
//
// # Invariants
//
//   - A Batch is a view over bytes owned by the caller; nothing is copied.
//   - The CRC covers everything from the attributes field to the end of the
//     batch, so SetBaseOffset and SetPartitionLeaderEpoch never invalidate it.
//   - Header fields are read at the fixed offsets of the v2 format; a slice
//     shorter than HeaderSize is never read.
//   - Decoding never panics and never allocates more than a bounded multiple
//     of its input (or MaxDecompressedSize after decompression), whatever
//     the bytes; FuzzValidate and FuzzRecords hold it to that.
//   - Builder output always passes Validate when it has at least one record.
package record
