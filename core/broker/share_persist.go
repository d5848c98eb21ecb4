package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/describe"
	"github.com/gregor-kafka/gregor/core/share"
)

// The share-partition leader's side of the share coordinator (Kafka's
// DefaultStatePersister and SharePartition.initialize, KIP-932): the
// engine's share partitions are a cache of what the coordinator keeps.
//
//   - A share partition is read from its coordinator (ReadShareGroupState,
//     with the topic partition's leader epoch) the first time this broker
//     serves it as leader; until the answer comes it has no records to
//     give. Uninitialized state (start offset -1) starts where
//     share.auto.offset.reset says.
//   - Every change (acquisitions, acknowledgements, released locks) is
//     written (WriteShareGroupState) before the answer that reports it is
//     sent, so an acknowledged record is never delivered again after its
//     leader or its coordinator moves, and a delivery count never goes
//     back. A write that fails drops the cached share partition (it is
//     read again) and fails what it carried: an acknowledgement gets the
//     write's error, acquired records are not sent.
//   - On a single broker, or when this broker is also the coordinator,
//     the same requests are served in-process.

// shareCoordinate hands a ShareOp to its share partition's coordinator,
// this broker's coordinator.Shares or another's (shareRemote), and done
// its answer (COORDINATOR_NOT_AVAILABLE when there is none).
func (b *Broker) shareCoordinate(op coordinator.ShareOp, done func(coordinator.ShareAnswer)) {
	sp := b.shares.PartitionOf(op.Key)
	if sp < 0 {
		if _, err := b.image.internalTopic(share.StateTopic); err != nil {
			done(coordinator.ShareAnswer{Code: kerr.CoordinatorNotAvailable.Code})
			return
		}
		sp = b.shares.PartitionOf(op.Key)
	}
	id, _, _, ok := b.internalLeader(share.StateTopic, sp)
	switch {
	case !ok:
		done(coordinator.ShareAnswer{Code: kerr.CoordinatorNotAvailable.Code})
	case id == b.cfg.NodeID:
		b.collectWrites(func() {
			a := b.shares.Serve(op, b.now)
			b.afterWrites(nil, b.cfg.Settings.Int64("offsets.commit.timeout.ms"), func(code int16) { a.Code = code }, func() { done(a) })
		})
	default:
		b.shareRemote(id, op, done)
	}
}

// shareLoad reports whether share partition k of partition p is in the
// engine, and asks its coordinator for it if not.
func (b *Broker) shareLoad(k share.Key, p *Partition) bool {
	if b.share.Partition(k) != nil {
		return true
	}
	if b.shareReads[k] {
		return false
	}
	b.shareReads[k] = true
	inline := true
	b.shareCoordinate(coordinator.ShareOp{API: coordinator.ShareRead, Key: k, LeaderEpoch: p.LeaderEpoch}, func(a coordinator.ShareAnswer) {
		delete(b.shareReads, k)
		part, pcode := b.sharePartition(share.TP{TopicID: k.TopicID, Partition: k.Partition})
		switch {
		case a.Code != 0:
			b.cfg.Logf("share group %s: reading the state of %s-%d: %s", k.Group, p.Topic.Name, k.Partition, describe.ErrorName(a.Code))
			return
		case pcode != 0 || b.share.Partition(k) != nil:
			return // no longer led here, or loaded meanwhile
		}
		sp := a.State
		if sp.Start < 0 { // uninitialized: initialized here, and written so
			epoch := sp.StateEpoch
			sp = share.NewPartition(b.shareResetOffset(k.Group, part))
			sp.StateEpoch = epoch
			b.share.Touch(k)
		}
		sp.LeaderEpoch = part.LeaderEpoch
		b.share.Restore(k, sp)
		if !inline {
			b.wakeShareFetches()
		}
	})
	inline = false
	return b.share.Partition(k) != nil
}

// shareResetOffset is where a share partition the group never read
// starts: the group's share.auto.offset.reset, as it is when the
// partition is initialized (group_configs.go). by_duration starts at the
// first record at most that old, or at the high watermark if there is
// none, as ListOffsets by timestamp does.
func (b *Broker) shareResetOffset(group string, p *Partition) int64 {
	r, _ := config.ParseShareReset(b.groupValue(group, "share.auto.offset.reset"))
	switch r.Kind {
	case "earliest":
		return p.log.StartOffset()
	case "by_duration":
		if off, _, ok, err := p.log.OffsetForTimestamp(b.now - r.Ms); err == nil && ok && off < p.HighWatermark {
			return off
		}
	}
	return p.HighWatermark
}

// persistShare writes the share groups' membership records that changed
// (group.Coordinator.StoreShare) and every share partition changed since
// the last call through its coordinator, and calls done, if set, once
// every write is answered, with the error codes of those that failed. It
// reports whether any share partition changed.
func (b *Broker) persistShare(done func(failed map[share.Key]int16)) bool {
	b.groups.StoreShare(b.coordinatesGroup)
	keys := b.share.TakeDirty()
	failed := map[share.Key]int16{}
	open := 1
	finish := func() {
		if open--; open == 0 && done != nil {
			done(failed)
		}
	}
	for _, k := range keys {
		p := b.share.Partition(k)
		if p == nil {
			continue
		}
		open++
		b.shareCoordinate(coordinator.ShareOp{API: coordinator.ShareWrite, Key: k, State: p.Snapshot()}, func(a coordinator.ShareAnswer) {
			if a.Code != 0 {
				failed[k] = a.Code
				if b.share.Partition(k) == p {
					b.share.Restore(k, nil)
				}
				b.cfg.Logf("share group %s: writing the state of partition %d: %s; it is read again", k.Group, k.Partition, describe.ErrorName(a.Code))
			}
			finish()
		})
	}
	finish()
	return len(keys) > 0
}
