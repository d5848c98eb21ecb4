package broker

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/store"
)

// A clustered broker keeps its replicas' high watermarks in
// replication-offset-checkpoint in its data directory, as Kafka does: it
// writes them every replica.high.watermark.checkpoint.interval.ms and when
// it closes, and a replica opened again starts from its checkpointed high
// watermark (at most its log end) instead of its log start. Without it a
// restarted leader answered ListOffsets(latest) and fetches as if nothing
// were committed until every follower had fetched again, and a restarted
// follower that was elected before that did the same.
//
// The checkpoint only ever lags: a high watermark is what the ISR already
// had, so starting from an older one is safe, and one past what the log
// recovered after a crash is cut to the log end.

const replicationCheckpointFile = "replication-offset-checkpoint"

// topicPartition names a partition in an offset checkpoint.
type topicPartition struct {
	topic     string
	partition int32
}

// encodeOffsetCheckpoint renders offsets in Kafka's OffsetCheckpointFile
// format: the version (0), the number of entries, then one "topic
// partition offset" line each, sorted.
func encodeOffsetCheckpoint(offsets map[topicPartition]int64) []byte {
	keys := make([]topicPartition, 0, len(offsets))
	for k := range offsets {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b topicPartition) int {
		if c := strings.Compare(a.topic, b.topic); c != 0 {
			return c
		}
		return int(a.partition) - int(b.partition)
	})
	var sb strings.Builder
	fmt.Fprintf(&sb, "0\n%d\n", len(keys))
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s %d %d\n", k.topic, k.partition, offsets[k])
	}
	return []byte(sb.String())
}

// errBadCheckpoint is an offset checkpoint that does not decode.
var errBadCheckpoint = errors.New("broker: corrupt offset checkpoint")

// decodeOffsetCheckpoint reads encodeOffsetCheckpoint's format.
func decodeOffsetCheckpoint(data []byte) (map[topicPartition]int64, error) {
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) < 2 || lines[0] != "0" {
		return nil, fmt.Errorf("%w: no version 0 header", errBadCheckpoint)
	}
	n, err := strconv.Atoi(lines[1])
	if err != nil || n < 0 || n != len(lines)-2 {
		return nil, fmt.Errorf("%w: %q entries, %d lines follow", errBadCheckpoint, lines[1], len(lines)-2)
	}
	out := make(map[topicPartition]int64, n)
	for _, line := range lines[2:] {
		f := strings.Fields(line)
		if len(f) != 3 || validTopicName(f[0]) != "" {
			return nil, fmt.Errorf("%w: line %q", errBadCheckpoint, line)
		}
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		off, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 || off < 0 {
			return nil, fmt.Errorf("%w: line %q", errBadCheckpoint, line)
		}
		out[topicPartition{f[0], int32(p)}] = off
	}
	return out, nil
}

// loadHighWatermarks reads the checkpoint a previous run wrote; a missing
// or corrupt one (logged) leaves every replica to start from its log
// start, as before checkpoints existed.
func (b *Broker) loadHighWatermarks() map[topicPartition]int64 {
	raw, err := b.st.ReadFile(replicationCheckpointFile)
	if errors.Is(err, store.ErrNotExist) {
		return nil
	}
	var hws map[topicPartition]int64
	if err == nil {
		hws, err = decodeOffsetCheckpoint(raw)
	}
	if err != nil {
		b.cfg.Logf("recovery: %s: %v; high watermarks start from the log start", replicationCheckpointFile, err)
		return nil
	}
	return hws
}

// checkpointedHighWatermark is where an opened replica's high watermark
// starts: the checkpointed one, within the log's bounds. An entry is used
// once: it describes the previous run's replica, not one opened later for
// a topic created again under the same name.
func (b *Broker) checkpointedHighWatermark(p *Partition) int64 {
	key := topicPartition{p.Topic.Name, p.Index}
	hw, ok := b.cl.hwCheckpoint[key]
	if !ok {
		return p.log.StartOffset()
	}
	delete(b.cl.hwCheckpoint, key)
	return min(max(hw, p.log.StartOffset()), p.log.EndOffset())
}

// maybeCheckpointHighWatermarks writes the checkpoint when its interval
// has passed.
func (b *Broker) maybeCheckpointHighWatermarks() error {
	if b.now < b.cl.nextHWCheckpoint {
		return nil
	}
	b.cl.nextHWCheckpoint = b.now + b.cfg.Settings.Int64("replica.high.watermark.checkpoint.interval.ms")
	return b.checkpointHighWatermarks()
}

// checkpointHighWatermarks writes every replica's high watermark.
func (b *Broker) checkpointHighWatermarks() error {
	hws := map[topicPartition]int64{}
	for _, p := range b.partitions() {
		hws[topicPartition{p.Topic.Name, p.Index}] = p.HighWatermark
	}
	if err := b.st.WriteFile(replicationCheckpointFile, encodeOffsetCheckpoint(hws)); err != nil {
		return fmt.Errorf("broker: writing %s: %w", replicationCheckpointFile, err)
	}
	return nil
}
