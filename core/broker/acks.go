package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// Answers that wait for the ISR (Kafka's delayed produce purgatory). In a
// cluster an append is durable once the high watermark covers it, that is
// once every ISR member has it. Three kinds of answer wait for that: an
// acks=all produce, a coordinator's answer after it wrote to
// __consumer_offsets or __transaction_state (Kafka's coordinators append
// with acks=all), and a partition leader's answer to WriteTxnMarkers.
// Each append is an ackWait; the answer goes out when all of its waits
// are settled: covered by the high watermark, leadership lost, or timed
// out. Only a partition this broker leads for followers (Partition.lead)
// waits here: a single broker's, whose only replica and ISR member it is,
// has its high watermark move with every append, as an acks=all produce
// to a Kafka partition of one replica completes at once.

// pendingAcks is one answer waiting for its appends to be replicated.
type pendingAcks struct {
	conn     *uint64 // the client connection answered; nil for in-process
	waits    []ackWait
	deadline int64
	finish   func() // sends the answer once every wait is settled
}

// ackWait is one append waiting for the high watermark.
type ackWait struct {
	p    *Partition
	lead *leaderState // the leadership the batch was appended under
	need int64        // the high watermark that covers the batch
	// settle records the outcome in the answer: 0 when replicated, else
	// NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS_AFTER_APPEND or
	// REQUEST_TIMED_OUT.
	settle func(code int16)
	done   bool
}

// minISR is the partition's min.insync.replicas.
func (b *Broker) minISR(p *Partition) int {
	return int(b.cfg.Settings.TopicInt64(p.Topic.Configs, "min.insync.replicas"))
}

// awaitISR holds an answer until its waits are settled or timeoutMs
// passed. conn is the connection it answers (its answer is dropped with
// it), nil for an in-process one.
func (b *Broker) awaitISR(conn *uint64, waits []ackWait, timeoutMs int64, finish func()) {
	b.acks = append(b.acks, &pendingAcks{conn: conn, waits: waits, deadline: b.now + timeoutMs, finish: finish})
	b.completeAcks()
}

// answer returns a finish that answers req with resp, after the next
// Commit's sync when syncs name partitions to sync; a failed sync settles
// its waits with KAFKA_STORAGE_ERROR first (storage_failure.go).
func (b *Broker) answer(req Request, resp kmsg.Response, syncs []ackWait) func() {
	return func() {
		b.afterSyncs(syncs, func() { b.reply(req, resp) })
	}
}

// completeAcks settles the waits that are done: their batches are below
// the high watermark, leadership was lost (NOT_LEADER_OR_FOLLOWER), the
// ISR shrank below min.insync.replicas meanwhile
// (NOT_ENOUGH_REPLICAS_AFTER_APPEND), or they timed out; and it sends the
// answers whose waits are all settled.
func (b *Broker) completeAcks() {
	kept := b.acks[:0]
	var finished []*pendingAcks
	for _, a := range b.acks {
		open := 0
		for i := range a.waits {
			w := &a.waits[i]
			if w.done {
				continue
			}
			switch {
			case w.p.offline:
				w.settle(kerr.KafkaStorageError.Code)
			case w.p.lead != w.lead || w.p.deleted:
				w.settle(kerr.NotLeaderForPartition.Code)
			case w.p.HighWatermark >= w.need:
				code := int16(0)
				if len(w.p.ISR) < b.minISR(w.p) {
					code = kerr.NotEnoughReplicasAfterAppend.Code
				}
				w.settle(code)
			case b.now >= a.deadline:
				w.settle(kerr.RequestTimedOut.Code)
			default:
				open++
				continue
			}
			w.done = true
		}
		if open > 0 {
			kept = append(kept, a)
			continue
		}
		finished = append(finished, a)
	}
	clear(b.acks[len(kept):])
	b.acks = kept
	// Finish after the list is consistent: a finish may append and wait
	// again (a coordinator completing a transaction).
	for _, a := range finished {
		a.finish()
	}
}

// answerAfterWrites sends a coordinator's answer once what the step in
// progress appended is durable (coordinator_writes.go): after the ISR has
// it in a cluster, after the next Commit's sync when a flush policy asks.
// A write that cannot be replicated or synced turns the answer into the
// error Kafka's coordinators give: NOT_COORDINATOR when leadership moved
// or the storage failed, COORDINATOR_NOT_AVAILABLE otherwise
// (GroupMetadataManager's and TransactionStateManager's mapping of
// append errors). The state the coordinator applied stays: a deposed
// leader unloads it, and a retried request finds it.
func (b *Broker) answerAfterWrites(req Request, resp kmsg.Response, timeoutMs int64) {
	b.afterWrites(&req.Conn, timeoutMs, func(code int16) { wire.OverwriteErrorCodes(resp, code) }, func() { b.reply(req, resp) })
}

// afterWrites runs finish once what the step in progress appended is
// durable, as
// answerAfterWrites answers, after fail got the error code for a write
// that could not be replicated or synced.
func (b *Broker) afterWrites(conn *uint64, timeoutMs int64, fail func(code int16), finish func()) {
	settle := func(code int16) {
		switch code {
		case 0:
			return
		case kerr.NotLeaderForPartition.Code, kerr.KafkaStorageError.Code:
			code = kerr.NotCoordinator.Code
		default:
			code = kerr.CoordinatorNotAvailable.Code
		}
		fail(code)
	}
	w := b.stepWrites()
	syncs := make([]ackWait, len(w.syncs))
	for i, aw := range w.syncs {
		aw.settle = settle
		syncs[i] = aw
	}
	then := func() { b.afterSyncs(syncs, finish) }
	if len(w.waits) == 0 {
		then()
		return
	}
	waits := make([]ackWait, len(w.waits))
	for i, aw := range w.waits {
		aw.settle = settle
		waits[i] = aw
	}
	b.awaitISR(conn, waits, timeoutMs, then)
}
