package coordinator

import (
	"fmt"

	"github.com/gregor-kafka/gregor/core/record"
)

// Records calls fn for every record of partition p of an internal topic
// from its log start offset, in offset order, skipping control batches
// (Host.Scan: the whole log, every batch's CRC checked). Each batch is
// copied first, since Scan reuses its buffer, so fn may keep the record's
// key and value. An error names the partition.
func Records(h Host, topic string, p int32, fn func(offset int64, r record.Record)) error {
	err := h.Scan(topic, p, func(start int64, batch record.Batch) error {
		if batch.IsControl() {
			return nil
		}
		recs, err := append(record.Batch(nil), batch...).Records()
		if err != nil {
			return fmt.Errorf("batch at %d: %w", batch.BaseOffset(), err)
		}
		for _, r := range recs {
			if o := batch.BaseOffset() + int64(r.OffsetDelta); o >= start {
				fn(o, r)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("broker: replaying %s-%d: %w", topic, p, err)
	}
	return nil
}

// replayLocal replays each partition of an internal topic this broker
// keeps, at a single broker's start; false when it keeps none.
func replayLocal(h Host, topic string, replay func(p int32) error) (bool, error) {
	n, ok := h.Local(topic)
	if !ok {
		return false, nil
	}
	for p := range n {
		if err := replay(p); err != nil {
			return true, err
		}
	}
	return true, nil
}
