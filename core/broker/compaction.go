package broker

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The log cleaner (Kafka's LogCleaner) compacts the partitions of topics
// with cleanup.policy=compact. It runs inside Tick, on the engine's one
// goroutine, reading at most log.cleaner.io.buffer.size bytes per tick:
// a pass over a big log is spread over many ticks, with requests handled
// in between. One partition is cleaned at a time; when none has a pass in
// progress the cleaner looks for one that is due (its dirty ratio reached
// min.cleanable.dirty.ratio, or a delete horizon passed) every
// log.cleaner.backoff.ms. Each replica cleans its own log, as in Kafka,
// never at or above its last stable offset (itself below the high
// watermark). A partition whose log turns out corrupt is left uncleaned
// (Kafka's uncleanable partitions); an I/O error takes it offline like
// any failed write (storage_failure.go).

// cleanerState is the broker's cleaner bookkeeping.
type cleanerState struct {
	current     *Partition // a pass in progress, or nil
	nextCheck   int64      // when idle: the next look for a due partition
	uncleanable map[*Partition]bool
}

// cleanContext is what a partition's log needs to know to be cleaned.
func (b *Broker) cleanContext(p *Partition, force bool) log.CleanContext {
	return log.CleanContext{
		Now: b.now, UpTo: p.lastStableOffset(), Force: force,
		// Kafka's offset map takes 24 bytes a key; an entry of Go's map
		// about 64.
		MaxKeys: int(b.cfg.Settings.Int64("log.cleaner.dedupe.buffer.size") / 64),
		ProducerLast: func(pid int64) (int64, bool) {
			e, ok := p.producers.Get(pid)
			if !ok || len(e.Batches) == 0 {
				return 0, false
			}
			return e.Batches[len(e.Batches)-1].LastOffset, true
		},
	}
}

// tickCleaner does one tick's worth of cleaning.
func (b *Broker) tickCleaner() {
	s := b.cfg.Settings
	if !s.Bool("log.cleaner.enable") {
		return
	}
	budget := s.Int64("log.cleaner.io.buffer.size")
	if p := b.cleaner.current; p != nil {
		if !p.offline {
			b.cleanStep(p, false, budget)
		}
		if b.cleaner.current == p && (p.offline || !p.log.Cleaning()) {
			b.cleaner.current = nil
		}
		return
	}
	if b.now < b.cleaner.nextCheck {
		return
	}
	for _, p := range b.partitions() {
		if p.offline || !p.log.Config().Compact || b.cleaner.uncleanable[p] {
			continue
		}
		passes, ok := b.cleanStep(p, false, budget)
		if ok && p.log.Cleaning() {
			b.cleaner.current = p
			return
		}
		if passes > 0 {
			return // one tick's budget went to that pass
		}
	}
	b.cleaner.nextCheck = b.now + s.Int64("log.cleaner.backoff.ms")
}

// cleanStep runs the partition's cleaner with the budget and returns how
// many passes it finished; false when it failed (the failure is handled
// and logged).
func (b *Broker) cleanStep(p *Partition, force bool, budget int64) (int, bool) {
	notes, err := p.log.Clean(b.cleanContext(p, force), budget)
	for _, n := range notes {
		b.cfg.Logf("cleaner: %s", n)
	}
	if err == nil {
		return len(notes), true
	}
	if b.cleaner.current == p {
		b.cleaner.current = nil
	}
	if errors.Is(err, log.ErrCorrupt) {
		if b.cleaner.uncleanable == nil {
			b.cleaner.uncleanable = map[*Partition]bool{}
		}
		b.cleaner.uncleanable[p] = true
		b.cfg.Logf("cleaner: %s is left uncleaned: %v", p, err)
		return len(notes), false
	}
	b.failPartition(p, fmt.Errorf("cleaning: %w", err))
	return len(notes), false
}

// keylessInCompacted reports why a batch cannot go to a compacted
// partition: records without a key, which the cleaner could never place.
// As Kafka's LogValidator does (KIP-467), every keyless record is named by
// its index in the batch, and the message counts them and quotes the first
// three; the whole batch is refused. Only compacted topics decode records
// here. msg is empty when the batch may be appended.
func keylessInCompacted(p *Partition, b record.Batch) (msg string, errs []kmsg.ProduceResponseTopicPartitionErrorRecord) {
	if !p.log.Config().Compact {
		return "", nil
	}
	recs, err := b.Records()
	if err != nil {
		return fmt.Sprintf("records do not decode: %v", err), nil
	}
	why := fmt.Sprintf("Compacted topic cannot accept message without key in topic partition %s.", p)
	for i, r := range recs {
		if r.Key == nil {
			e := kmsg.NewProduceResponseTopicPartitionErrorRecord()
			e.RelativeOffset, e.ErrorMessage = int32(i), &why
			errs = append(errs, e)
		}
	}
	if len(errs) == 0 {
		return "", nil
	}
	shown := make([]string, 0, 3)
	for _, e := range errs[:min(len(errs), 3)] {
		shown = append(shown, fmt.Sprintf("RecordError(batchIndex=%d, message='%s')", e.RelativeOffset, *e.ErrorMessage))
	}
	return fmt.Sprintf("One or more records have been rejected due to %d record errors in total, and only showing the first three errors at most: [%s]",
		len(errs), strings.Join(shown, ", ")), errs
}

// CompactNow runs a whole cleaning pass over one partition at once,
// whatever its dirty ratio (the simulator's `compact` command); false when
// the partition had nothing cleanable. The cleaner reports through Logf.
func (b *Broker) CompactNow(topic string, partition int32) (bool, error) {
	t := b.topics[topic]
	if t == nil || int(partition) >= len(t.Partitions) {
		return false, fmt.Errorf("broker: no partition %s-%d", topic, partition)
	}
	p := t.Partitions[partition]
	if p.offline {
		return false, fmt.Errorf("broker: %s is offline", p)
	}
	if !p.log.Config().Compact {
		return false, fmt.Errorf("broker: %s is not compacted (cleanup.policy=%s)", p, b.policyOf(t))
	}
	ran := false
	for force := true; ; force = false {
		passes, ok := b.cleanStep(p, force, 1<<62)
		ran = ran || passes > 0
		if !ok {
			return ran, fmt.Errorf("broker: cleaning %s failed", p)
		}
		if !p.log.Cleaning() {
			break
		}
	}
	if b.cleaner.current == p {
		b.cleaner.current = nil
	}
	return ran, nil
}

func (b *Broker) policyOf(t *Topic) string {
	v, _, _ := b.cfg.Settings.Topic(t.Configs, "cleanup.policy")
	return v
}
