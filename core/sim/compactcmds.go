package sim

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/record"
)

func init() { commands["compact"] = cmdCompact }

// cmdCompact: compact BROKER TOPIC-P runs a whole pass of the log cleaner
// over a partition of a compacted topic at once, whatever its dirty ratio
// (the broker otherwise cleans on its own, a bounded amount per tick:
// core/broker/compaction.go), and prints what the cleaner did.
func cmdCompact(w *World, c command) error {
	n, err := w.brokerArg(c)
	if err != nil {
		return err
	}
	tp, err := c.arg(1, "topic-partition")
	if err != nil {
		return err
	}
	p, err := partitionOn(c, n, tp)
	if err != nil {
		return err
	}
	l := p.Log()
	dirty := l.FirstDirtyOffset()
	ran, err := n.Broker.CompactNow(p.Topic.Name, p.Index)
	w.carryOut(n)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	if !ran {
		w.notef(n.Name, "note", "cleaner: %s: nothing cleanable (the active segment and offsets at or above the last stable offset are never cleaned)", tp)
	}
	w.notef(n.Name, "note", "cleaner: %s first dirty offset %d -> %d", tp, dirty, l.FirstDirtyOffset())
	return nil
}

// describeCompacted is describeBatch for a compacted topic: records carry
// their key and offset (a cleaned batch has gaps), tombstones say so, and
// a batch the cleaner stamped shows its delete horizon (KIP-534).
func describeCompacted(topic string, b record.Batch) string {
	head := describeBatch(topic, b)
	if b.IsControl() {
		if h, ok := b.DeleteHorizon(); ok {
			return fmt.Sprintf("%s delete_horizon=%d", head, h)
		}
		return head
	}
	head, _, _ = strings.Cut(head, ": ")
	recs, err := b.Records()
	if err != nil {
		return fmt.Sprintf("%s: %v", head, err)
	}
	if len(recs) == 0 {
		head += ": (empty: kept for its producer's sequence)"
	}
	var parts []string
	for _, r := range recs {
		v := fmt.Sprintf("%q", r.Value)
		if r.Value == nil {
			v = "(tombstone)"
		}
		parts = append(parts, fmt.Sprintf("@%d %s=%s", b.BaseOffset()+int64(r.OffsetDelta), r.Key, v))
	}
	if len(parts) > 0 {
		head += ": " + strings.Join(parts, " ")
	}
	if h, ok := b.DeleteHorizon(); ok {
		head += fmt.Sprintf(" delete_horizon=%d", h)
	}
	return head
}
