package coordinator

import (
	"fmt"
	"math/rand/v2"
	"reflect"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/producer"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// Groups is the group coordinator in a broker: core/group's state
// machine, its records in __consumer_offsets (group.Topic), and the
// offsets' expiry timer.
type Groups struct {
	*group.Coordinator
	h          Host
	lastExpiry int64 // offsets.retention.check.interval.ms
}

// NewGroups builds the group coordinator from the host's settings, with
// as many partitions as __consumer_offsets has (the topic's count wins
// over a changed setting). groupInt64 reads a group's dynamic config
// (consumer.session.timeout.ms, consumer.heartbeat.interval.ms).
func NewGroups(h Host, rnd *rand.Rand, sh *share.Engine, groupInt64 func(id, name string) int64, now int64) *Groups {
	s := h.Settings()
	partitions := int32(s.Int64("offsets.topic.num.partitions"))
	if n, ok := h.Local(group.Topic); ok {
		partitions = n
	}
	g := &Groups{h: h, lastExpiry: now}
	g.Coordinator = group.New(group.Config{
		Partitions:                  partitions,
		InitialRebalanceDelayMs:     int32(s.Int64("group.initial.rebalance.delay.ms")),
		MinSessionTimeoutMs:         int32(s.Int64("group.min.session.timeout.ms")),
		MaxSessionTimeoutMs:         int32(s.Int64("group.max.session.timeout.ms")),
		MaxSize:                     int32(s.Int64("group.max.size")),
		MaxMetadataBytes:            int(s.Int64("offset.metadata.max.bytes")),
		ConsumerSessionTimeoutMs:    int32(s.Int64("group.consumer.session.timeout.ms")),
		ConsumerHeartbeatIntervalMs: int32(s.Int64("group.consumer.heartbeat.interval.ms")),
		ConsumerTimeouts: func(id string) (int32, int32) {
			return int32(groupInt64(id, "consumer.session.timeout.ms")), int32(groupInt64(id, "consumer.heartbeat.interval.ms"))
		},
		Rand:   rnd,
		Log:    groupLog{h},
		Topics: h,
		Share:  sh,
		Logf:   h.Logf,
	}, now)
	return g
}

type groupLog struct{ h Host }

func (l groupLog) Append(p int32, batch record.Batch) error {
	_, err := l.h.Append(group.Topic, p, batch)
	return err
}

// Load rebuilds every group from the __consumer_offsets partitions this
// broker keeps, at startup on a single broker. In a cluster the groups of
// a partition are loaded when this broker becomes its leader (Replay).
func (g *Groups) Load() error {
	if ok, err := replayLocal(g.h, group.Topic, g.Replay); !ok || err != nil {
		return err
	}
	if n := len(g.Groups()); n > 0 {
		g.h.Logf("loaded %d consumer groups from %s", n, group.Topic)
	}
	return nil
}

// Replay rebuilds the groups of one __consumer_offsets partition, at
// startup or when this broker becomes its leader (the whole log, as
// Host.Scan reads it): plain records apply at once, the records of a
// transactional batch wait for their producer's marker further on, as
// Kafka's GroupMetadataManager loads them. Each batch is copied before
// it is decoded, as Records does: the groups keep their members'
// subscriptions and assignments, which decode as slices of the record's
// value, and Scan reads the next batches into the same buffer.
func (g *Groups) Replay(p int32) error {
	c := g.Coordinator
	return g.h.Scan(group.Topic, p, func(start int64, batch record.Batch) error {
		if batch.IsControl() {
			kind, _, err := producer.DecodeMarker(batch)
			if err != nil {
				return err
			}
			if kind == producer.ControlAbort || kind == producer.ControlCommit {
				c.ReplayTxnMarker(p, batch.ProducerID(), kind == producer.ControlCommit)
			}
			return nil
		}
		recs, err := append(record.Batch(nil), batch...).Records()
		if err != nil {
			return fmt.Errorf("broker: replaying %s-%d at %d: %w", group.Topic, p, batch.BaseOffset(), err)
		}
		for _, r := range recs {
			if batch.BaseOffset()+int64(r.OffsetDelta) < start {
				continue
			}
			if batch.IsTransactional() {
				c.ReplayTxnOffset(p, batch.ProducerID(), r.Key, r.Value)
			} else {
				c.Replay(p, r.Key, r.Value)
			}
		}
		return nil
	})
}

// Tick runs the state machine's timers (group.Coordinator.Tick) and,
// every offsets.retention.check.interval.ms, expires the offsets older
// than offsets.retention.minutes.
func (g *Groups) Tick(now int64) {
	g.Coordinator.Tick(now)
	s := g.h.Settings()
	if now-g.lastExpiry >= s.Int64("offsets.retention.check.interval.ms") {
		g.lastExpiry = now
		g.ExpireOffsets(now, s.Int64("offsets.retention.minutes")*60_000)
	}
}

// Owns reports whether this broker coordinates a group: it leads the
// group's __consumer_offsets partition (always, on a single broker).
func (g *Groups) Owns(id string) bool {
	return g.h.Owns(group.Topic, g.PartitionFor(id))
}

// MarkForeign answers NOT_COORDINATOR for the groups of a many-group
// answer (DescribeGroups, OffsetFetch v8+, ConsumerGroupDescribe,
// DeleteGroups) that this broker does not coordinate; the coordinator
// knows nothing of them and left them empty. Every such answer lists
// them in Groups, each with its Group and ErrorCode.
func (g *Groups) MarkForeign(resp kmsg.Response) {
	gs := reflect.ValueOf(resp).Elem().FieldByName("Groups")
	for i := range gs.Len() {
		if e := gs.Index(i); !g.Owns(e.FieldByName("Group").String()) {
			e.FieldByName("ErrorCode").SetInt(int64(kerr.NotCoordinator.Code))
		}
	}
}
