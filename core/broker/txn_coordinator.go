package broker

import (
	"reflect"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
)

// The transaction coordinator's glue (KIP-98): core/txn holds the state
// machine; this file builds it from the broker's settings, replays
// __transaction_state into it at startup, routes the coordinator APIs to
// it, writes its markers through this broker's WriteTxnMarkers once the
// decision is durable (see commitTxn), and holds answers given after a
// write that must be synced until the next Commit.
//
// Served here:
//
//	FindCoordinator key type 1 (through find_coordinator.go),
//	InitProducerId with a transactional id (through init_producer_id.go),
//	AddPartitionsToTxn v0-5 (v4+ batched, VerifyOnly: KIP-890 part 1),
//	AddOffsetsToTxn v0-4, EndTxn v0-4, DescribeTransactions v0,
//	ListTransactions v0-1, and TxnOffsetCommit v0-4 (txn_offsets.go).
//
// EndTxn v5 and TxnOffsetCommit v5+ belong to transaction version 2
// (KIP-890 part 2), which this broker does not serve.
func init() {
	register(24, 0, 5, handleTxn) // AddPartitionsToTxn
	register(25, 0, 4, handleTxn) // AddOffsetsToTxn
	register(26, 0, 4, handleTxn) // EndTxn
	register(65, 0, 0, handleTxn) // DescribeTransactions
	register(66, 0, 1, handleTxn) // ListTransactions
}

// txnGlue is the broker's part of the transaction coordinator.
type txnGlue struct {
	c        *txn.Coordinator
	mustSync bool // this step appended to a log that must be synced
}

type txnLog struct{ b *Broker }

func (l txnLog) Append(p int32, batch record.Batch) (int64, error) {
	t, err := l.b.EnsureInternalTopic(TransactionStateTopic)
	if err != nil {
		return 0, err
	}
	off, err := l.b.AppendInternal(TransactionStateTopic, p, batch)
	if err == nil && t.partition(p).log.NeedsFlush(l.b.now) {
		l.b.txn.mustSync = true
	}
	return off, err
}

// initTxn builds the coordinator, rebuilds every transaction from
// __transaction_state, and finishes those left decided but not complete.
// It runs after the partitions and the group coordinator are loaded, so
// the markers it writes land where they belong.
func (b *Broker) initTxn(now int64) error {
	s := b.cfg.Settings
	partitions := int32(s.Int64("transaction.state.log.num.partitions"))
	if t := b.topics[TransactionStateTopic]; t != nil {
		partitions = int32(len(t.Partitions))
	}
	b.txn.c = txn.New(txn.Config{
		Partitions:      partitions,
		MaxTimeoutMs:    int32(s.Int64("transaction.max.timeout.ms")),
		AbortIntervalMs: s.Int64("transaction.abort.timed.out.transaction.cleanup.interval.ms"),
		Log:             txnLog{b},
		Markers:         b,
		ProducerIDs:     b.nextProducerID,
		CoordinatorEpoch: func(p int32) int32 {
			if t := b.topics[TransactionStateTopic]; t != nil && t.partition(p) != nil {
				return t.partition(p).LeaderEpoch
			}
			return 0
		},
		PartitionExists: func(topic string, p int32) bool { return b.topics[topic].partition(p) != nil },
		GroupPartition:  b.groups.c.PartitionFor,
		Logf:            b.cfg.Logf,
	}, now)
	hooks := TxnHooks{Completed: b.txnCompleted}
	if s.Bool("transaction.partition.verification.enable") {
		hooks.Verify = b.txn.c.Verify
	}
	b.SetTxnHooks(hooks)
	t := b.topics[TransactionStateTopic]
	if t == nil {
		return nil
	}
	for _, p := range t.Partitions {
		err := b.ReplayInternal(TransactionStateTopic, p.Index, func(_ int64, r record.Record) {
			b.txn.c.Replay(p.Index, r.Key, r.Value)
		})
		if err != nil {
			return err
		}
	}
	if n := len(b.txn.c.IDs()); n > 0 {
		b.cfg.Logf("loaded %d transactional ids from %s", n, TransactionStateTopic)
	}
	b.txn.c.Recover()
	b.txn.c.WriteMarkers(now) // the Prepare records are durable: they were read back
	return nil
}

// txnCompleted hears of every marker written here: on __consumer_offsets
// it settles the offsets committed inside the transaction.
func (b *Broker) txnCompleted(topic string, partition int32, producerID int64, commit bool) {
	if topic != OffsetsTopic {
		return
	}
	for _, g := range b.groups.c.CompleteTxn(partition, producerID, commit) {
		verb := "committed"
		if !commit {
			verb = "dropped"
		}
		b.cfg.Logf("group %s: offsets of producer %d's transaction %s", g, producerID, verb)
	}
}

// Transactions is the transaction coordinator, for views and tests.
func (b *Broker) Transactions() *txn.Coordinator { return b.txn.c }

// tickTxn aborts transactions past their timeout.
func (b *Broker) tickTxn(now int64) {
	if b.txn.c != nil {
		b.txn.mustSync = false
		b.txn.c.Tick(now)
	}
}

// commitTxn is the second phase of every decision made since the last
// Commit: the Prepare records have just been synced, so the markers may
// now be written and Complete recorded. It reports whether it wrote
// anything, which the caller syncs in turn.
func (b *Broker) commitTxn() bool {
	if b.txn.c == nil || !b.txn.c.MarkersDue() {
		return false
	}
	b.txn.c.WriteMarkers(b.now)
	return true
}

// flushDirty syncs the logs marked dirty since the last sync.
func (b *Broker) flushDirty() error {
	var firstErr error
	for _, p := range b.dirty {
		p.dirty = false
		if p.deleted {
			continue
		}
		if err := p.log.Flush(b.now); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	b.dirty = b.dirty[:0]
	return firstErr
}

// txnCoordinatorFor answers whether this broker coordinates a
// transactional id: the leader of its __transaction_state partition.
func (b *Broker) txnCoordinatorFor(id string) int16 {
	t, err := b.EnsureInternalTopic(TransactionStateTopic)
	if err != nil {
		b.cfg.Logf("creating %s: %v", TransactionStateTopic, err)
		return kerr.CoordinatorNotAvailable.Code
	}
	p := t.partition(b.txn.c.PartitionFor(id))
	if p == nil || p.Leader != b.cfg.NodeID {
		return kerr.NotCoordinator.Code
	}
	return 0
}

// findTxnCoordinator is FindCoordinator for key type 1.
func (b *Broker) findTxnCoordinator(key string) kmsg.FindCoordinatorResponseCoordinator {
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Port = key, -1, -1
	if code := b.txnCoordinatorFor(key); code != 0 {
		c.ErrorCode = code
		msg := kerr.ErrorForCode(code).(*kerr.Error).Message
		c.ErrorMessage = &msg
		return c
	}
	c.NodeID, c.Host, c.Port = b.cfg.NodeID, b.cfg.Host, b.cfg.Port
	return c
}

// handleTxn hands a coordinator request to the state machine, after
// checking this broker coordinates the transactional id it names.
func handleTxn(b *Broker, r *Request) kmsg.Response {
	id, named := "", true
	switch m := r.Msg.(type) {
	case *kmsg.AddPartitionsToTxnRequest:
		id, named = m.TransactionalID, m.Version < 4
	case *kmsg.AddOffsetsToTxnRequest:
		id = m.TransactionalID
	case *kmsg.EndTxnRequest:
		id = m.TransactionalID
	case *kmsg.InitProducerIDRequest:
		id = *m.TransactionalID
	default:
		named = false
	}
	if named {
		if code := b.txnCoordinatorFor(id); code != 0 {
			resp := r.Msg.ResponseKind()
			resp.SetVersion(r.Msg.GetVersion())
			setErrorCodes(reflect.ValueOf(resp).Elem(), code, 2)
			return resp
		}
	}
	b.txn.mustSync = false
	resp := b.txn.c.Handle(b.now, r.Msg)
	if b.txn.mustSync {
		b.awaitFlush = append(b.awaitFlush, Response{r.Conn, r.Header.CorrelationID, resp})
		return nil
	}
	return resp
}
