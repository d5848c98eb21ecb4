package broker

import (
	"fmt"

	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/record"
)

// coordinatorHost is the broker as the coordinators' glue (core/coordinator)
// sees it: internal partitions to append to and replay, their leadership,
// the metadata's topics and the settings.
type coordinatorHost struct{ b *Broker }

var _ coordinator.Host = coordinatorHost{}

func (h coordinatorHost) Topic(name string) ([16]byte, int32, bool) {
	it, ok := h.b.image.topic(name)
	return it.id, int32(it.partitions), ok
}

func (h coordinatorHost) TopicByID(id [16]byte) (string, int32, bool) {
	it, ok := h.b.image.topicByID(id)
	return it.name, int32(it.partitions), ok
}

// Names lists the topics in no order; callers sort (matchTopics).
func (h coordinatorHost) Names() []string { return h.b.image.topicNames() }

func (h coordinatorHost) Settings() *config.Broker { return h.b.cfg.Settings }

func (h coordinatorHost) Logf(format string, args ...any) { h.b.cfg.Logf(format, args...) }

func (h coordinatorHost) Local(topic string) (int32, bool) {
	t := h.b.topics[topic]
	if t == nil {
		return 0, false
	}
	return int32(len(t.Partitions)), true
}

func (h coordinatorHost) Owns(topic string, p int32) bool {
	return h.b.image.coordinatorHere(topic, p)
}

func (h coordinatorHost) Leads(topic string, p int32) bool { return h.b.coordinates(topic, p) }

func (h coordinatorHost) Append(topic string, p int32, batch record.Batch) (int64, error) {
	return h.b.AppendInternal(topic, p, batch)
}

func (h coordinatorHost) Scan(topic string, p int32, fn func(start int64, batch record.Batch) error) error {
	part := h.b.topics[topic].partition(p)
	if part == nil {
		return fmt.Errorf("%w: %s-%d", ErrNoInternalPartition, topic, p)
	}
	start := part.log.StartOffset()
	return part.log.Scan(start, func(batch record.Batch) error { return fn(start, batch) })
}

func (h coordinatorHost) Durable(topic string, p int32, offset int64) bool {
	if h.b.cl == nil {
		return true
	}
	part := h.b.topics[topic].partition(p)
	return part != nil && h.b.leads(part) && part.HighWatermark > offset
}

func (h coordinatorHost) LeaderEpoch(topic string, p int32) int32 {
	if part := h.b.topics[topic].partition(p); part != nil {
		return part.LeaderEpoch
	}
	return 0
}
