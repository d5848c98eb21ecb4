package broker

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Storage failures. A write or sync that fails takes its partition
// offline on this broker, for good until a restart recovers the log
// (Kafka's LogDirFailureChannel: a failed log dir's partitions go
// offline, KIP-112). Nothing is retried: after a failed fsync the kernel
// may already have dropped the dirty pages, so a second fsync can succeed
// without the data (PostgreSQL's "fsyncgate"). Instead the broker fails
// closed:
//
//   - no answer that waited for the failed write or sync reports success:
//     a produce or a marker gets KAFKA_STORAGE_ERROR for that partition,
//     a coordinator's answer NOT_COORDINATOR (how Kafka's coordinators map
//     KAFKA_STORAGE_ERROR from their appends);
//   - the partition takes no more appends (KAFKA_STORAGE_ERROR), and reads
//     stop at what was synced before the failure: its high watermark is
//     cut back to the log's recovery point, and after a failed sync the
//     log itself (cutToSynced); read_committed is refused
//     (KAFKA_STORAGE_ERROR), as the .txnindex may be what failed;
//   - a follower whose log failed stops fetching, so its leader drops it
//     from the ISR;
//   - Metadata lists this broker among its offline replicas; a single
//     broker also reports it without a leader (LEADER_NOT_AVAILABLE), as
//     Kafka's metadata does for a partition whose only replica is on a
//     failed log dir;
//   - the coordinator of a failed __consumer_offsets or
//     __transaction_state partition is unloaded: its groups or
//     transactions answer NOT_COORDINATOR, FindCoordinator answers
//     COORDINATOR_NOT_AVAILABLE, and the markers of a transaction whose
//     Prepare record failed to sync are never written;
//   - a broker alone keeps serving its other partitions, unlike Kafka,
//     which halts a broker whose only log dir failed; a broker in a
//     cluster tells the controller and halts (log_dir_failure.go).

// heldAnswer is an answer that waits for the next Commit's sync of the
// partitions in syncs; the settle of each one whose sync failed is called
// with KAFKA_STORAGE_ERROR before finish sends the answer.
type heldAnswer struct {
	syncs  []ackWait
	finish func()
}

// afterSyncs runs finish once the next Commit has synced the partitions of
// syncs, at once when there are none.
func (b *Broker) afterSyncs(syncs []ackWait, finish func()) {
	if len(syncs) == 0 {
		finish()
		return
	}
	b.awaitFlush = append(b.awaitFlush, heldAnswer{syncs: syncs, finish: finish})
}

// releaseHeld settles the held answers against the syncs just done and
// sends them. Answers held while it runs wait for the next Commit.
func (b *Broker) releaseHeld() {
	held := b.awaitFlush
	b.awaitFlush = nil
	for _, h := range held {
		for _, w := range h.syncs {
			if w.p.offline {
				w.settle(kerr.KafkaStorageError.Code)
			}
		}
		h.finish()
	}
}

// Commit syncs every log whose flush policy asks for it, with one sync per
// log however many batches arrived since the last Commit (group commit),
// and then queues for the next Ready the answers that waited for them. A
// sync that fails takes its partition offline (failPartition) before anything
// that depends on it happens: the transaction markers commitTxn writes
// are those of Prepare records that did sync, and the answers that
// waited for the failed sync carry an error.
func (b *Broker) Commit() error {
	firstErr := b.flushDirty()
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if b.commitTxn() {
		keep(b.flushDirty())
	}
	b.releaseHeld()
	// In-process marker answers may have completed transactions; their
	// Complete records are synced now, as before their markers were.
	keep(b.flushDirty())
	return firstErr
}

// flushDirty syncs the logs marked dirty since the last sync, once each.
// A log is forgotten before its sync and never synced again when that
// sync fails: the partition goes offline instead.
func (b *Broker) flushDirty() error {
	var firstErr error
	for _, p := range b.dirty {
		p.dirty = false
		if p.deleted || p.offline {
			continue
		}
		if err := p.log.Flush(b.now); err != nil {
			err = fmt.Errorf("broker: flushing %s: %w", p, err)
			b.cutToSynced(p)
			b.failPartition(p, err)
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	b.dirty = b.dirty[:0]
	return firstErr
}

// cutToSynced truncates p's log to its recovery point, the end of its
// last successful sync, after a sync failed. The kernel may have dropped
// the pages that sync could not write while the page cache still shows
// them, so a restart that recovered the log as it reads would trust bytes
// that a power loss takes, and every byte appended after them with it
// (the disk holds a hole where they were, and recovery stops there). Cut
// back, the restart finds only what reached the disk: a replica fetches
// the rest from its leader, and a single broker acknowledged nothing past
// it that waited for a sync. A failed write needs no cut: what was
// written before it is dirty in the page cache, and the restart's syncs
// take it to the disk.
func (b *Broker) cutToSynced(p *Partition) {
	synced := p.log.RecoveryPoint()
	if synced >= p.log.EndOffset() {
		return
	}
	if err := p.log.TruncateTo(synced); err != nil {
		b.cfg.Logf("%s: cutting the log back to its last sync at %d: %v", p, synced, err)
		return
	}
	b.cfg.Logf("%s: log cut back to offset %d, where its last sync ended: no restart trusts what the failed sync may have lost", p, synced)
	b.afterTruncate(p)
}

// failPartition takes p offline after a failed write or sync (see the
// top of this file). It is idempotent.
func (b *Broker) failPartition(p *Partition, err error) {
	if p.offline {
		return
	}
	p.offline = true
	synced := p.log.RecoveryPoint()
	if p.HighWatermark > synced {
		p.HighWatermark = synced
	}
	b.cfg.Logf("%s: KAFKA_STORAGE_ERROR: %v; the partition is offline on this broker until a restart recovers its log "+
		"(synced below offset %d, log end %d); unsynced answers fail, nothing more is appended", p, err, synced, p.log.EndOffset())
	b.unloadCoordinator(p)
	b.completeAcks()
	b.logDirFailed()
}

// Offline reports whether p went offline after a storage failure; a nil
// partition (not on this broker) is not.
func (p *Partition) Offline() bool { return p != nil && p.offline }

// OfflinePartitions names the partitions offline on this broker after a
// storage failure, in a fixed order.
func (b *Broker) OfflinePartitions() []string {
	var out []string
	for _, p := range b.partitions() {
		if p.offline {
			out = append(out, p.String())
		}
	}
	return out
}
