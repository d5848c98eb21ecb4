package group

import "unicode/utf16"

// Topic is the internal topic that holds committed offsets and group
// metadata.
const Topic = "__consumer_offsets"

// JavaStringHashCode is Java's String.hashCode over s decoded as UTF-8 into
// UTF-16 code units: h = 31*h + unit, in wrapping 32-bit arithmetic. Bytes
// that are not UTF-8 count as U+FFFD, as Java's decoder substitutes them.
// The transaction coordinator places transactional ids with the same
// formula.
func JavaStringHashCode(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

// JavaAbs is Kafka's Utils.abs: Math.abs, except that Integer.MIN_VALUE
// (whose Math.abs is itself, still negative) maps to 0.
func JavaAbs(n int32) int32 {
	switch {
	case n == -1<<31:
		return 0
	case n < 0:
		return -n
	}
	return n
}

// PartitionFor is the partition of an internal topic with n partitions
// that owns key: Utils.abs(key.hashCode()) % n, as Kafka's
// GroupMetadataManager.partitionFor (and TransactionStateManager's) compute
// it. The leader of that partition is the key's coordinator.
func PartitionFor(key string, n int32) int32 {
	if n <= 0 {
		return 0
	}
	return JavaAbs(JavaStringHashCode(key)) % n
}
