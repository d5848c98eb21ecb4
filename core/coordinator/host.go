package coordinator

import (
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/record"
)

// Host is what the coordinators need of the broker they run in. The
// broker implements it; every call happens on the broker's own call
// (Handle, Tick), in the coordinator step in progress if there is one.
type Host interface {
	// Topics are the cluster's topics, as the metadata has them.
	group.Topics
	// Settings are the broker's settings.
	Settings() *config.Broker
	// Logf logs one line.
	Logf(format string, args ...any)
	// Local is the number of partitions this broker keeps of an internal
	// topic, false while it keeps none.
	Local(topic string) (int32, bool)
	// Owns reports whether this broker coordinates the keys of partition p
	// of an internal topic: always on a single broker, when it leads p in
	// a cluster.
	Owns(topic string, p int32) bool
	// Leads reports whether this broker leads partition p of an internal
	// topic and it is online, on a single broker too: where the share
	// coordinator serves its keys now.
	Leads(topic string, p int32) bool
	// Append appends batch to partition p of an internal topic this broker
	// leads, in the step in progress, and returns its base offset.
	Append(topic string, p int32, batch record.Batch) (int64, error)
	// Scan calls fn with every batch of partition p of an internal topic,
	// control batches too, in offset order from the log's start offset,
	// which it passes along.
	Scan(topic string, p int32, fn func(start int64, batch record.Batch) error) error
	// Durable reports whether the record at offset of partition p of an
	// internal topic may be acted on: on a single broker always (its
	// answers wait for the sync that follows the step), in a cluster once
	// the ISR has it (this broker leads p and its high watermark passed
	// offset), as Kafka appends coordinator records with acks=all.
	Durable(topic string, p int32, offset int64) bool
	// LeaderEpoch is the leader epoch of partition p of an internal
	// topic, 0 while this broker keeps none.
	LeaderEpoch(topic string, p int32) int32
}
