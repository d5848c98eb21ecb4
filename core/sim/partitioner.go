package sim

// Murmur2 is Kafka's Utils.murmur2, the hash the Java client's default
// partitioner (and librdkafka's murmur2_random, franz-go's sticky key
// partitioner) applies to a record key.
func Murmur2(data []byte) int32 {
	const (
		seed uint32 = 0x9747b28c
		m    uint32 = 0x5bd1e995
		r           = 24
	)
	length := len(data)
	h := seed ^ uint32(length)
	for i := 0; i+4 <= length; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	tail := data[length&^3:]
	switch len(tail) {
	case 3:
		h ^= uint32(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint32(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint32(tail[0])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// PartitionForKey is the Java client's choice for a keyed record:
// toPositive(murmur2(key)) % numPartitions. Only the count matters, which
// is why adding partitions moves keys (seed 004).
func PartitionForKey(key []byte, partitions int32) int32 {
	return (Murmur2(key) & 0x7fffffff) % partitions
}
