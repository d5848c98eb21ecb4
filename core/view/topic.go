package view

import (
	"maps"
	"slices"

	"github.com/gregor-kafka/gregor/core/broker"
)

// TopicSummary is one topic in the console's list: how many partitions
// it has, and what this broker holds of it.
type TopicSummary struct {
	Name       string
	Partitions int
	// Local counts the partitions with a replica on this broker, Size
	// their bytes on its disk.
	Local    int
	Size     int64
	Internal bool
}

// TopicPage is the page of at most n topics whose names follow after (""
// for the first page) and that keep lets through (nil keeps every one),
// in name order, and the after of the next page ("" when none follows):
// the names are sorted, but only the page's topics are read, so a page
// costs the same however many topics the cluster has. In a cluster the
// topics are the metadata image's, all of them: a broker itself has only
// those it holds replicas of.
func TopicPage(b *broker.Broker, after string, n int, keep func(name string) bool) ([]TopicSummary, string) {
	counts := topicPartitions(b)
	names, next := idPage(slices.Collect(maps.Keys(counts)), after, n, keep)
	out := make([]TopicSummary, 0, len(names))
	for _, name := range names {
		s := TopicSummary{Name: name, Partitions: counts[name], Internal: InternalTopic(name)}
		if t := b.Topic(name); t != nil {
			for _, p := range t.Partitions {
				if held(b, p) {
					s.Local++
					s.Size += p.Log().Size()
				}
			}
		}
		out = append(out, s)
	}
	return out, next
}

// topicPartitions is every topic's partition count: the metadata
// image's in a cluster, the broker's own on a single broker.
func topicPartitions(b *broker.Broker) map[string]int {
	out := map[string]int{}
	if im := b.Image(); im != nil {
		//purity:unordered copied into a map
		for name, t := range im.Topics {
			out[name] = len(t.Partitions)
		}
		return out
	}
	for _, t := range b.Topics() {
		out[t.Name] = len(t.Partitions)
	}
	return out
}

// TopicReplica is what this broker holds of one partition of a topic.
type TopicReplica struct {
	Start, HW, LEO, Size int64
}

// ReplicasOf is this broker's replica of each partition of topic it
// holds, by partition index; nil for a topic it does not know.
func ReplicasOf(b *broker.Broker, topic string) map[int32]TopicReplica {
	t := b.Topic(topic)
	if t == nil {
		return nil
	}
	out := map[int32]TopicReplica{}
	for _, p := range t.Partitions {
		if l := p.Log(); held(b, p) {
			out[p.Index] = TopicReplica{Start: l.StartOffset(), HW: p.HighWatermark, LEO: l.EndOffset(), Size: l.Size()}
		}
	}
	return out
}

// held reports whether b holds a replica of p: in a cluster a topic has
// a slot for every partition, those placed on other brokers without
// replicas here.
func held(b *broker.Broker, p *broker.Partition) bool {
	return p.Log() != nil && (b.Image() == nil || len(p.Replicas) > 0)
}

// LeaderOf is the leader of a partition as b knows it (the metadata
// image's in a cluster, where this broker may hold no replica), or false
// when b knows no such partition.
func LeaderOf(b *broker.Broker, topic string, index int32) (int32, bool) {
	if im := b.Image(); im != nil {
		if ip := im.Partition(topic, index); ip != nil {
			return ip.Leader, true
		}
		return -1, false
	}
	if p := partitionAt(b, topic, index); p != nil {
		return p.Leader, true
	}
	return -1, false
}

// partitionAt is b's partition of topic at index, nil when none.
func partitionAt(b *broker.Broker, topic string, index int32) *broker.Partition {
	t := b.Topic(topic)
	if t == nil || index < 0 || int(index) >= len(t.Partitions) {
		return nil
	}
	return t.Partitions[index]
}
