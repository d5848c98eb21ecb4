package broker

import (
	"errors"
	"fmt"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/record"
)

// Kafka's internal topics (Topic.isInternal). They are created by the
// coordinators that use them, with offsets.topic.num.partitions or
// transaction.state.log.num.partitions partitions and replication factor
// 1, and reported IsInternal in Metadata.
const (
	OffsetsTopic          = group.Topic
	TransactionStateTopic = "__transaction_state"
)

// ErrNoInternalPartition is returned when an internal topic or partition
// does not exist.
var ErrNoInternalPartition = errors.New("broker: no such internal topic partition")

// isInternalTopic reports whether name is one of Kafka's internal topics.
func isInternalTopic(name string) bool {
	return name == OffsetsTopic || name == TransactionStateTopic
}

// internalTopicConfigs are the internal topics' overrides. Kafka compacts
// them (cleanup.policy=compact); Gregor cannot compact yet, so it keeps
// them whole instead of letting retention delete live offsets.
func internalTopicConfigs() map[string]string {
	return map[string]string{"retention.ms": "-1", "segment.bytes": "104857600"}
}

// EnsureInternalTopic returns an internal topic, creating it first if it
// does not exist.
func (b *Broker) EnsureInternalTopic(name string) (*Topic, error) {
	if t := b.topics[name]; t != nil {
		return t, nil
	}
	if b.cl != nil {
		// Coordinators on replicated internal topics are not built yet.
		return nil, fmt.Errorf("%w: %s in a cluster", ErrNoInternalPartition, name)
	}
	var n int64
	switch name {
	case OffsetsTopic:
		n = b.cfg.Settings.Int64("offsets.topic.num.partitions")
	case TransactionStateTopic:
		n = b.cfg.Settings.Int64("transaction.state.log.num.partitions")
	default:
		return nil, fmt.Errorf("%w: %s is not an internal topic", ErrNoInternalPartition, name)
	}
	spec := &topicSpec{name: name, partitions: int32(n), rf: 1, configs: internalTopicConfigs()}
	spec.assignment = Place(b.brokers(), 0, 0, int(n), 1)
	return b.createTopic(spec)
}

// AppendInternal appends a batch (built with record.NewBuilder) to
// partition p of an internal topic through the same path as Produce: the
// leader epoch is stamped, the high watermark advances, waiting fetches
// wake, and the log is marked for the next Commit's sync when its flush
// policy asks; answers given in the same step then wait for that sync.
func (b *Broker) AppendInternal(topic string, p int32, batch record.Batch) (int64, error) {
	part := b.topics[topic].partition(p)
	if part == nil || !isInternalTopic(topic) {
		return 0, fmt.Errorf("%w: %s-%d", ErrNoInternalPartition, topic, p)
	}
	batch.SetPartitionLeaderEpoch(part.LeaderEpoch)
	base, err := part.log.Append(batch, b.now)
	if err != nil {
		return 0, fmt.Errorf("broker: appending to %s: %w", part, err)
	}
	part.epochs.assign(part.LeaderEpoch, base)
	b.advanceHighWatermark(part)
	b.wakeFetches(part)
	if part.log.NeedsFlush(b.now) {
		b.markDirty(part)
		b.groups.mustSync = true
	}
	return base, nil
}

// ReplayInternal calls fn for every record of partition p of an internal
// topic below its high watermark, in offset order, skipping control
// batches. Coordinators rebuild their state with it at startup.
func (b *Broker) ReplayInternal(topic string, p int32, fn func(offset int64, r record.Record)) error {
	part := b.topics[topic].partition(p)
	if part == nil {
		return fmt.Errorf("%w: %s-%d", ErrNoInternalPartition, topic, p)
	}
	for next := part.log.StartOffset(); next < part.HighWatermark; {
		data, err := part.log.Read(next, 1<<20, part.HighWatermark, true)
		if err != nil {
			return fmt.Errorf("broker: replaying %s at %d: %w", part, next, err)
		}
		if len(data) == 0 {
			break
		}
		it := record.NewIter(data)
		for batch, ok := it.Next(); ok; batch, ok = it.Next() {
			next = batch.LastOffset() + 1
			if batch.IsControl() {
				continue
			}
			recs, err := batch.Records()
			if err != nil {
				return fmt.Errorf("broker: replaying %s at %d: %w", part, batch.BaseOffset(), err)
			}
			for _, r := range recs {
				if o := batch.BaseOffset() + int64(r.OffsetDelta); o >= part.log.StartOffset() {
					fn(o, r)
				}
			}
		}
		if err := it.Err(); err != nil {
			return fmt.Errorf("broker: replaying %s at %d: %w", part, next, err)
		}
	}
	return nil
}
