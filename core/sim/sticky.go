package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"

	"github.com/gregor-kafka/gregor/core/record"
)

// Records without a key. Seed 004's rule (one random partition until the
// next metadata refresh, then another) was the old Scala producer's; the
// Java producer up to 2.3 went round-robin, record by record. Since 2.4 it
// uses the built-in sticky partitioner (KIP-480, made uniform by KIP-794):
// every keyless record of a topic goes to the current
// sticky partition until batch.size bytes were produced to it, then a new
// partition is drawn uniformly at random (possibly the same one) among
// the partitions that have a leader. The Java client draws right after
// the append that fills the quota; this one draws when the next keyless
// record comes, which sends every record to the same partition and prints
// the draw where it takes effect. Sticking fills one batch at a time
// instead of many small ones. KIP-794 also weighs the draw by each
// partition's queue, which a producer without a backlog does not have.
//
// The teaching producer sends each record in its own batch; the choice of
// partition is what the Java client would make.

// defaultBatchSize is the Java producer's batch.size.
const defaultBatchSize = 16384

// stickyState is a topic's current sticky partition and the bytes
// produced to it since it was chosen.
type stickyState struct {
	partition int32
	produced  int
}

// stickyPartition is the partition for a keyless record of topic (with n
// partitions): the sticky one, or a new draw when there is none yet or
// batch.size bytes were produced to it.
func (p *producer) stickyPartition(w *World, topic string, n int32) int32 {
	switch s := p.sticky[topic]; {
	case s == nil || s.partition >= n:
		next := p.drawPartition(w, topic, n)
		w.notef(p.name, "note", "no key: sticky partition %s-%d, drawn at random among %d", topic, next, n)
		p.sticky[topic] = &stickyState{partition: next}
	case s.produced >= p.batchSize:
		next := p.drawPartition(w, topic, n)
		w.notef(p.name, "note", "no key: %s-%d got %d bytes >= batch.size=%d: sticky partition %s-%d, drawn at random", topic, s.partition, s.produced, p.batchSize, topic, next)
		p.sticky[topic] = &stickyState{partition: next}
	}
	return p.sticky[topic].partition
}

// stuck counts a keyless record's bytes against its sticky partition.
func (p *producer) stuck(topic string, batch record.Batch) {
	if s := p.sticky[topic]; s != nil {
		s.produced += batch.Size() - record.HeaderSize // the record, without the batch header
	}
}

// drawPartition draws uniformly among the partitions with a known leader
// (every partition on a single broker), as BuiltInPartitioner does with
// availablePartitionsForTopic, from the producer's own generator.
func (p *producer) drawPartition(w *World, topic string, n int32) int32 {
	var avail []int32
	for i := range n {
		if w.cl == nil || p.leaders[fmt.Sprintf("%s-%d", topic, i)] != "" {
			avail = append(avail, i)
		}
	}
	if p.stickyRand == nil {
		h := fnv.New64a()
		h.Write([]byte(p.name))
		p.stickyRand = rand.New(rand.NewPCG(h.Sum64(), stickyStream))
	}
	if len(avail) == 0 {
		return int32(p.stickyRand.IntN(int(n)))
	}
	return avail[p.stickyRand.IntN(len(avail))]
}

// stickyStream separates the sticky draws from any other stream seeded
// by a producer's name.
const stickyStream = 0x5717c4

// The draws come from the producer's own generator, seeded by its name
// rather than by the world's seed: the same script draws the same
// partitions under every seed, so a lesson replayed with another seed
// (lessons/play) differs only in its ids, and its narration stays true.
