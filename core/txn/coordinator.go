package txn

import (
	"math"
	"sort"

	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// Config is what a Coordinator needs from the broker that hosts it.
type Config struct {
	// Partitions is transaction.state.log.num.partitions.
	Partitions int32
	// MaxTimeoutMs is transaction.max.timeout.ms: the largest
	// transaction.timeout.ms a producer may ask for.
	MaxTimeoutMs int32
	// AbortIntervalMs is
	// transaction.abort.timed.out.transaction.cleanup.interval.ms: how
	// often Tick looks for transactions past their timeout.
	AbortIntervalMs int64
	// ExpirationMs is transactional.id.expiration.ms: an id idle that
	// long is forgotten (expire.go); ExpireIntervalMs is
	// transaction.remove.expired.transaction.cleanup.interval.ms, how
	// often Tick looks for them. Zero takes Kafka's defaults (7 days, 1
	// hour).
	ExpirationMs, ExpireIntervalMs int64
	// Log stores records in __transaction_state.
	Log Log
	// Markers sends transaction markers to partition leaders.
	Markers MarkerWriter
	// Durable reports whether the record at offset of a
	// __transaction_state partition is committed: synced on a single
	// broker, replicated to the ISR in a cluster (Kafka appends with
	// acks=all). Markers wait for their Prepare record to be durable.
	// Nil means every record is (a single broker calls WriteMarkers only
	// after its sync).
	Durable func(partition int32, offset int64) bool
	// ProducerIDs hands out a fresh producer id.
	ProducerIDs func() (int64, error)
	// CoordinatorEpoch is the leader epoch of a __transaction_state
	// partition, which the markers carry so a partition can refuse a
	// deposed coordinator (TRANSACTION_COORDINATOR_FENCED).
	CoordinatorEpoch func(partition int32) int32
	// PartitionExists tells whether a partition may join a transaction.
	PartitionExists func(topic string, partition int32) bool
	// GroupPartition is the __consumer_offsets partition of a group,
	// which AddOffsetsToTxn puts in the transaction.
	GroupPartition func(groupID string) int32
	// Logf receives one line per record written and per marker exchange.
	Logf func(format string, args ...any)
}

// Log is the coordinator's storage: the partitions of __transaction_state.
type Log interface {
	// Append writes one batch and returns its base offset. An error
	// means the write did not happen: the storage failed, or this broker
	// no longer leads the partition. The request is then answered
	// NOT_COORDINATOR (writeFailed).
	Append(partition int32, b record.Batch) (int64, error)
}

// writeFailed is the answer to a request whose write to
// __transaction_state failed: NOT_COORDINATOR, as Kafka's
// TransactionStateManager.appendTransactionToLog answers the append
// errors a failed storage or a lost leadership give (KAFKA_STORAGE_ERROR,
// NOT_LEADER_OR_FOLLOWER). The client looks the coordinator up again.
// (Writes that wait for the ISR and fail later are answered by the
// broker, with the rest of that mapping.)
func writeFailed() int16 { return kerr.NotCoordinator.Code }

// MarkerWriter sends markers to the leaders of their partitions (Kafka's
// TransactionMarkerChannelManager): in-process for the partitions the
// coordinator's broker leads, over the network for the others. It calls
// done exactly once, now or later, with an error code per partition; a
// partition it could not reach gets a retriable one.
type MarkerWriter interface {
	WriteTxnMarkers(req *kmsg.WriteTxnMarkersRequest, done func(*kmsg.WriteTxnMarkersResponse))
}

// markerRetryBackoffMs is how long a partition whose marker failed waits
// before it is sent again (Kafka's retry.backoff.ms default).
const markerRetryBackoffMs = 100

// Coordinator is the transaction coordinator of one broker.
type Coordinator struct {
	cfg        Config
	txns       map[string]*Metadata
	now        int64
	lastAbort  int64
	lastExpire int64
}

// New returns a coordinator with no transactions; Replay then restores
// them and Recover finishes the decided ones.
func New(cfg Config, now int64) *Coordinator {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 1
	}
	if cfg.MaxTimeoutMs <= 0 {
		cfg.MaxTimeoutMs = 900000
	}
	if cfg.AbortIntervalMs <= 0 {
		cfg.AbortIntervalMs = 10000
	}
	if cfg.ExpirationMs <= 0 {
		cfg.ExpirationMs = 7 * 24 * 60 * 60 * 1000
	}
	if cfg.ExpireIntervalMs <= 0 {
		cfg.ExpireIntervalMs = 60 * 60 * 1000
	}
	if cfg.PartitionExists == nil {
		cfg.PartitionExists = func(string, int32) bool { return true }
	}
	if cfg.GroupPartition == nil {
		cfg.GroupPartition = func(g string) int32 { return PartitionFor(g, 50) }
	}
	if cfg.Durable == nil {
		cfg.Durable = func(int32, int64) bool { return true }
	}
	if cfg.CoordinatorEpoch == nil {
		cfg.CoordinatorEpoch = func(int32) int32 { return 0 }
	}
	return &Coordinator{cfg: cfg, txns: map[string]*Metadata{}, now: now, lastAbort: now, lastExpire: now}
}

// PartitionFor is the __transaction_state partition of a transactional id.
func (c *Coordinator) PartitionFor(transactionalID string) int32 {
	return PartitionFor(transactionalID, c.cfg.Partitions)
}

// Get returns a copy of a transaction's state.
func (c *Coordinator) Get(transactionalID string) (Metadata, bool) {
	m, ok := c.txns[transactionalID]
	if !ok {
		return Metadata{}, false
	}
	return *m.clone(), true
}

// IDs lists the known transactional ids, sorted.
func (c *Coordinator) IDs() []string {
	ids := make([]string, 0, len(c.txns))
	for id := range c.txns {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (c *Coordinator) advance(now int64) {
	if now > c.now {
		c.now = now
	}
}

// write appends next as transactional id's record and, once it is in the
// log, makes it the transaction's state.
func (c *Coordinator) write(next *Metadata) error {
	next.LastUpdateTimestamp = c.now
	p := c.PartitionFor(next.TransactionalID)
	bl := record.NewBuilder(record.NewBatchHeader(c.now))
	bl.Add(EncodeKey(next.TransactionalID), EncodeValue(next), 0)
	off, err := c.cfg.Log.Append(p, bl.Build())
	if err != nil {
		c.cfg.Logf("%s: writing to %s-%d failed: %v", next.TransactionalID, Topic, p, err)
		return err
	}
	c.cfg.Logf("%s-%d offset %d: %s %s", Topic, p, off, next.TransactionalID, next.Describe())
	next.offset = off
	c.txns[next.TransactionalID] = next
	return nil
}

// Replay applies the record at offset of __transaction_state partition p,
// in log order. Records that do not decode are skipped with a log line.
func (c *Coordinator) Replay(p int32, offset int64, key, value []byte) {
	id, m, err := Decode(key, value)
	if err != nil {
		c.cfg.Logf("replaying %s-%d: %v", Topic, p, err)
		return
	}
	if m == nil {
		delete(c.txns, id)
		return
	}
	if old := c.txns[id]; old != nil && old.ProducerID == m.ProducerID && old.ProducerEpoch != m.ProducerEpoch {
		m.LastProducerEpoch = old.ProducerEpoch
	}
	m.offset = offset
	c.txns[id] = m
}

// Recover runs after partition p was replayed: every transaction of p
// left in a Prepare state gets its markers again (Kafka's
// loadTransactionsForTxnTopicPartition hands them to the marker channel);
// WriteMarkers then finishes them.
func (c *Coordinator) Recover(p int32) {
	for _, id := range c.IDs() {
		m := c.txns[id]
		if c.PartitionFor(id) == p && m.decided() {
			m.pending = append([]TopicPartition(nil), m.Partitions...)
			c.cfg.Logf("%s: found in %s after a restart: completing it", id, m.State)
		}
	}
}

// Unload forgets the transactions of __transaction_state partition p when
// this broker stops leading it (Kafka's removeTransactionsForTxnTopic
// Partition); the new leader replays them. Marker answers still on their
// way are then ignored. It returns the ids it dropped.
func (c *Coordinator) Unload(p int32) []string {
	var gone []string
	for _, id := range c.IDs() {
		if c.PartitionFor(id) == p {
			delete(c.txns, id)
			gone = append(gone, id)
		}
	}
	return gone
}

// decided reports whether m waits for its markers and Complete record.
func (m *Metadata) decided() bool { return m.State == PrepareCommit || m.State == PrepareAbort }

// ready reports whether WriteMarkers has work for m now: it is decided,
// its decision is durable, and no marker is in flight or backing off.
func (c *Coordinator) ready(m *Metadata) bool {
	return m.decided() && !m.sending && m.retryAt <= c.now &&
		c.cfg.Durable(c.PartitionFor(m.TransactionalID), m.offset)
}

// MarkersDue reports whether a decided transaction can move on now.
func (c *Coordinator) MarkersDue() bool {
	//purity:unordered an any-of check; order cannot matter
	for _, m := range c.txns {
		if c.ready(m) {
			return true
		}
	}
	return false
}

// WriteMarkers is the second phase: for every transaction whose Prepare
// record is durable it sends WriteTxnMarkers for the partitions still
// missing theirs and, once all answered, writes CompleteCommit or
// CompleteAbort. The broker calls it after the sync that made the Prepare
// records durable. Partitions that failed are sent again after
// markerRetryBackoffMs.
func (c *Coordinator) WriteMarkers(now int64) {
	c.advance(now)
	for _, id := range c.IDs() {
		if m := c.txns[id]; c.ready(m) {
			if len(m.pending) > 0 {
				c.sendMarkers(m)
			} else {
				c.complete(m)
			}
		}
	}
}

// complete writes CompleteCommit or CompleteAbort for a transaction whose
// markers are all written; a failed write is tried again at the next
// WriteMarkers.
func (c *Coordinator) complete(m *Metadata) {
	next := m.clone()
	next.State, next.pending = CompleteCommit, nil
	if m.State == PrepareAbort {
		next.State = CompleteAbort
	}
	next.Partitions = nil // Kafka keeps the start timestamp, drops the partitions
	if m.NextProducerID >= 0 {
		// A TV2 end at the last epoch: the producer moves to the id
		// allocated at the prepare, at epoch 0 (KIP-890 part 2).
		next.PrevProducerID, next.ProducerID, next.ProducerEpoch = m.ProducerID, m.NextProducerID, 0
		next.NextProducerID = -1
	}
	if c.write(next) != nil {
		m.retryAt = c.now + markerRetryBackoffMs
	}
}

// sendMarkers sends the markers of m's pending partitions.
func (c *Coordinator) sendMarkers(m *Metadata) {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	req.SetVersion(1)
	mk := kmsg.NewWriteTxnMarkersRequestMarker()
	mk.ProducerID, mk.ProducerEpoch = m.ProducerID, m.ProducerEpoch
	if m.ClientTV >= 2 {
		// The marker carries the bumped epoch, which the partition
		// must see above its producer's (KIP-890 part 2, KIP-1228).
		req.SetVersion(2)
		mk.TransactionVersion = int8(m.ClientTV)
	}
	mk.Committed = m.State == PrepareCommit
	mk.CoordinatorEpoch = c.cfg.CoordinatorEpoch(c.PartitionFor(m.TransactionalID))
	for _, tp := range m.pending {
		if n := len(mk.Topics); n > 0 && mk.Topics[n-1].Topic == tp.Topic {
			mk.Topics[n-1].Partitions = append(mk.Topics[n-1].Partitions, tp.Partition)
			continue
		}
		t := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
		t.Topic, t.Partitions = tp.Topic, []int32{tp.Partition}
		mk.Topics = append(mk.Topics, t)
	}
	req.Markers = append(req.Markers, mk)
	c.cfg.Logf("%s: %s", m.TransactionalID, describe.Message(req))
	m.sending = true
	c.cfg.Markers.WriteTxnMarkers(req, func(resp *kmsg.WriteTxnMarkersResponse) { c.markersAnswered(m, resp) })
}

// markersAnswered keeps pending the partitions whose marker must be sent
// again and, when none is left, completes the transaction.
func (c *Coordinator) markersAnswered(m *Metadata, resp *kmsg.WriteTxnMarkersResponse) {
	if c.txns[m.TransactionalID] != m {
		return // unloaded meanwhile: the partition's new leader finishes it
	}
	m.sending = false
	c.cfg.Logf("%s: %s", m.TransactionalID, describe.Message(resp))
	var retry []TopicPartition
	for _, rm := range resp.Markers {
		for _, t := range rm.Topics {
			for _, p := range t.Partitions {
				switch p.ErrorCode {
				case 0:
				case kerr.UnknownTopicOrPartition.Code:
					// The topic is gone: there is nothing to mark (Kafka
					// skips partitions whose metadata disappeared).
				case kerr.InvalidProducerEpoch.Code, kerr.TransactionCoordinatorFenced.Code:
					// A newer epoch or coordinator already wrote here;
					// Kafka stops sending this marker.
					c.cfg.Logf("%s: marker for %s-%d refused: %s", m.TransactionalID, t.Topic, p.Partition, describe.ErrorName(p.ErrorCode))
				default:
					retry = append(retry, TopicPartition{t.Topic, p.Partition})
				}
			}
		}
	}
	m.pending = retry
	if len(retry) > 0 {
		m.retryAt = c.now + markerRetryBackoffMs
		return
	}
	c.complete(m)
}

// Tick aborts, every AbortIntervalMs, the transactions that have been
// Ongoing longer than their timeout, fencing their producer with an
// epoch bump (Kafka's abortTimedOutTransactions).
func (c *Coordinator) Tick(now int64) {
	c.advance(now)
	if now-c.lastExpire >= c.cfg.ExpireIntervalMs {
		c.lastExpire = now
		c.expireIDs()
	}
	if now-c.lastAbort < c.cfg.AbortIntervalMs {
		return
	}
	c.lastAbort = now
	for _, id := range c.IDs() {
		m := c.txns[id]
		if m.State == Ongoing && m.StartTimestamp >= 0 && m.StartTimestamp+int64(m.TimeoutMs) < now {
			c.cfg.Logf("%s: transaction of pid=%d epoch=%d ran past its timeout of %dms: aborting it", id, m.ProducerID, m.ProducerEpoch, m.TimeoutMs)
			c.fenceAndAbort(m)
		}
	}
}

// NextDeadline is when the coordinator next has work: now while markers
// are due, when a failed marker may be sent again, and the next abort
// sweep while a transaction is Ongoing.
func (c *Coordinator) NextDeadline() (at int64, ok bool) {
	take := func(t int64) {
		if !ok || t < at {
			at, ok = t, true
		}
	}
	//purity:unordered takes the earliest deadline
	for _, m := range c.txns {
		switch {
		case c.ready(m):
			take(c.now)
		case m.decided() && !m.sending && m.retryAt > c.now:
			take(m.retryAt)
		case m.State == Ongoing:
			take(c.lastAbort + c.cfg.AbortIntervalMs)
		}
	}
	return at, ok
}

// fenceAndAbort bumps the epoch of an Ongoing transaction and decides to
// abort it (PrepareEpochFence, then PrepareAbort with the new epoch), so
// the producer that started it can no longer add to it or end it. Under
// transaction version 2 the abort bumps the epoch once more, as every
// end of version 2 does (Kafka's prepareFenceProducerEpoch, then
// prepareAbortOrCommit): the fenced producer's epoch is then two below
// the current one, and its EndTxn cannot pass for the retry of an end
// whose answer was lost, which names the epoch just below (endTxnV2).
func (c *Coordinator) fenceAndAbort(m *Metadata) int16 {
	next := m.clone()
	next.State = PrepareEpochFence
	limit := maxEpoch
	if m.ClientTV >= 2 {
		limit = math.MaxInt16 // Kafka's fence stops at Short.MaxValue
	}
	if next.ProducerEpoch < limit {
		next.ProducerEpoch++
	}
	next.LastProducerEpoch = -1
	c.cfg.Logf("%s: %s: epoch %d -> %d", m.TransactionalID, PrepareEpochFence, m.ProducerEpoch, next.ProducerEpoch)
	if m.ClientTV >= 2 && next.ProducerEpoch < math.MaxInt16 {
		next.ProducerEpoch++
	}
	return c.prepare(next, PrepareAbort)
}

// prepare writes the decision (PrepareCommit or PrepareAbort); the
// markers follow at the next WriteMarkers.
func (c *Coordinator) prepare(next *Metadata, to State) int16 {
	next.State = to
	next.pending = append([]TopicPartition(nil), next.Partitions...)
	if err := c.write(next); err != nil {
		return writeFailed()
	}
	return 0
}

// prepareV2 writes the decision of a transaction version 2 end
// (Kafka's prepareAbortOrCommit with an epoch bump, KIP-890 part 2): the
// epoch goes up by one, so the markers fence every batch of the ending
// transaction's epoch, and a producer at the last epoch is handed a new
// producer id, which Complete switches to. It returns the error code and
// the id and epoch the producer continues with.
func (c *Coordinator) prepareV2(m *Metadata, to State) (int16, int64, int16) {
	next := m.clone()
	next.ClientTV = 2
	next.LastProducerEpoch, next.ProducerEpoch = m.ProducerEpoch, m.ProducerEpoch+1
	if next.State != Ongoing {
		// An empty abort (TV2 allows it): the transaction starts now.
		next.Partitions, next.StartTimestamp = nil, c.now
	}
	pid := m.ProducerID
	if m.ProducerEpoch >= maxEpoch {
		var err error
		if pid, err = c.cfg.ProducerIDs(); err != nil {
			return kerr.CoordinatorNotAvailable.Code, -1, -1
		}
		c.cfg.Logf("%s: epoch of producer %d exhausted: producer id %d follows this transaction", m.TransactionalID, m.ProducerID, pid)
	}
	epoch := next.ProducerEpoch
	if pid != m.ProducerID {
		next.NextProducerID, epoch = pid, 0
	}
	if code := c.prepare(next, to); code != 0 {
		return code, -1, -1
	}
	return 0, pid, epoch
}

// maxEpoch is the largest epoch handed out before the producer id is
// replaced (Kafka's Short.MaxValue - 1: one more is kept for fencing).
const maxEpoch int16 = 1<<15 - 2
