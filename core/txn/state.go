package txn

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
)

// Topic is the internal topic that holds the transactions.
const Topic = "__transaction_state"

// State is a transaction's state, numbered as Kafka stores it in
// TxnMetadataValue.State.
type State int8

const (
	Empty State = iota
	Ongoing
	PrepareCommit
	PrepareAbort
	CompleteCommit
	CompleteAbort
	Dead
	// PrepareEpochFence is held in memory only, while the coordinator
	// aborts a transaction whose producer it fences (timeout, or a new
	// instance); the record it writes is PrepareAbort.
	PrepareEpochFence
)

// String is the state as the Java enum names it (PREPARE_COMMIT), the
// spelling the seeds and the lessons use.
func (s State) String() string {
	switch s {
	case Empty:
		return "EMPTY"
	case Ongoing:
		return "ONGOING"
	case PrepareCommit:
		return "PREPARE_COMMIT"
	case PrepareAbort:
		return "PREPARE_ABORT"
	case CompleteCommit:
		return "COMPLETE_COMMIT"
	case CompleteAbort:
		return "COMPLETE_ABORT"
	case Dead:
		return "DEAD"
	case PrepareEpochFence:
		return "PREPARE_EPOCH_FENCE"
	}
	return fmt.Sprintf("STATE_%d", int8(s))
}

// Name is the state as DescribeTransactions and ListTransactions report it
// (Kafka's TransactionState.stateName: "PrepareCommit").
func (s State) Name() string { return kmsg.TransactionState(s).String() }

// parseStateName reads a ListTransactions state filter.
func parseStateName(name string) (State, bool) {
	for s := Empty; s <= PrepareEpochFence; s++ {
		if s.Name() == name {
			return s, true
		}
	}
	return 0, false
}

// TopicPartition names one partition in a transaction.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Metadata is one transactional id's state (Kafka's TransactionMetadata).
type Metadata struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	// LastProducerEpoch is the epoch before the last bump, so a retried
	// InitProducerId whose answer was lost is recognised (KIP-360); -1
	// when unknown.
	LastProducerEpoch int16
	TimeoutMs         int32
	State             State
	// Partitions are the partitions in the transaction, sorted.
	Partitions []TopicPartition
	// StartTimestamp is when the first partition joined the current
	// transaction, -1 when none runs.
	StartTimestamp      int64
	LastUpdateTimestamp int64
	// ClientTV is the transaction version the producer runs this
	// transaction under (Kafka's clientTransactionVersion): 2 once a
	// request of KIP-890 part 2 (Produce v12's implicit add,
	// TxnOffsetCommit v5, EndTxn v5) touched it, which makes every end
	// bump the epoch; 0 otherwise.
	ClientTV int16
	// PrevProducerID is the producer id before the last epoch overflow
	// (a TV2 end at the last epoch moves to NextProducerID), so a retry
	// of that EndTxn is recognised; -1 when none.
	PrevProducerID int64
	// NextProducerID is the id a TV2 transaction ending at the last epoch
	// moves to once complete; -1 when none.
	NextProducerID int64

	// pending lists the partitions still waiting for their marker while
	// the transaction is in a Prepare state.
	pending []TopicPartition
	// offset is where the state's record is in __transaction_state.
	offset int64
	// sending is set while a WriteTxnMarkers is out; retryAt is when
	// failed markers may be sent again.
	sending bool
	retryAt int64
}

func (m *Metadata) clone() *Metadata {
	c := *m
	c.Partitions = append([]TopicPartition(nil), m.Partitions...)
	c.pending = append([]TopicPartition(nil), m.pending...)
	return &c
}

func (m *Metadata) has(tp TopicPartition) bool {
	i := sort.Search(len(m.Partitions), func(i int) bool { return !tpLess(m.Partitions[i], tp) })
	return i < len(m.Partitions) && m.Partitions[i] == tp
}

func (m *Metadata) add(tps []TopicPartition) {
	for _, tp := range tps {
		if !m.has(tp) {
			m.Partitions = append(m.Partitions, tp)
			sort.Slice(m.Partitions, func(i, j int) bool { return tpLess(m.Partitions[i], m.Partitions[j]) })
		}
	}
}

func tpLess(a, b TopicPartition) bool {
	if a.Topic != b.Topic {
		return a.Topic < b.Topic
	}
	return a.Partition < b.Partition
}

// Describe is one line for a transaction's record or state, as views
// print it: "ONGOING pid=0 epoch=0 timeout=60000ms partitions=[orders-0]".
func (m *Metadata) Describe() string {
	parts := make([]string, len(m.Partitions))
	for i, tp := range m.Partitions {
		parts[i] = tp.String()
	}
	tv := ""
	if m.ClientTV >= 2 {
		tv = " tv=2"
	}
	return fmt.Sprintf("%s pid=%d epoch=%d timeout=%dms partitions=[%s]%s", m.State, m.ProducerID, m.ProducerEpoch, m.TimeoutMs, strings.Join(parts, " "), tv)
}

// PartitionFor is the __transaction_state partition of a transactional id
// among n: Utils.abs(transactionalId.hashCode()) % n, as Kafka's
// TransactionStateManager.partitionFor computes it.
func PartitionFor(transactionalID string, n int32) int32 {
	return group.PartitionFor(transactionalID, n)
}

// Record versions written: key v0 and value v0 as Kafka 3.x writes them;
// value v1 (Kafka 4.0, flexible, with the tagged fields of KIP-890 part
// 2) for a transaction of transaction version 2, and read for any.
const (
	KeyVersion     int16 = 0
	ValueVersion   int16 = 0
	ValueVersionV2 int16 = 1
)

// ErrBadRecord is returned for a __transaction_state record that does
// not decode.
var ErrBadRecord = errors.New("txn: malformed __transaction_state record")

// EncodeKey is the key of a transactional id's record.
func EncodeKey(transactionalID string) []byte {
	k := kmsg.NewTxnMetadataKey()
	k.Version, k.TransactionalID = KeyVersion, transactionalID
	return k.AppendTo(nil)
}

// EncodeValue is the value of a transaction's record.
func EncodeValue(m *Metadata) []byte {
	v := kmsg.NewTxnMetadataValue()
	v.Version = ValueVersion
	if m.ClientTV >= 2 {
		v.Version = ValueVersionV2
		v.ClientTransactionVersion = m.ClientTV
		v.PreviousProducerID, v.NextProducerID = m.PrevProducerID, m.NextProducerID
	}
	v.ProducerID, v.ProducerEpoch, v.TimeoutMillis = m.ProducerID, m.ProducerEpoch, m.TimeoutMs
	v.State = kmsg.TransactionState(m.State)
	v.LastUpdateTimestamp, v.StartTimestamp = m.LastUpdateTimestamp, m.StartTimestamp
	for _, tp := range m.Partitions {
		if n := len(v.Topics); n > 0 && v.Topics[n-1].Topic == tp.Topic {
			v.Topics[n-1].Partitions = append(v.Topics[n-1].Partitions, tp.Partition)
			continue
		}
		t := kmsg.NewTxnMetadataValueTopic()
		t.Topic, t.Partitions = tp.Topic, []int32{tp.Partition}
		v.Topics = append(v.Topics, t)
	}
	return v.AppendTo(nil)
}

// Decode reads one record: the transactional id, and its metadata or nil
// for a tombstone (a value of null).
func Decode(key, value []byte) (string, *Metadata, error) {
	k := kmsg.NewTxnMetadataKey()
	if err := k.ReadFrom(key); err != nil {
		return "", nil, fmt.Errorf("%w: key: %w", ErrBadRecord, err)
	}
	if k.Version != 0 {
		return "", nil, fmt.Errorf("%w: key version %d", ErrBadRecord, k.Version)
	}
	if value == nil {
		return k.TransactionalID, nil, nil
	}
	v := kmsg.NewTxnMetadataValue()
	if err := v.ReadFrom(value); err != nil {
		return "", nil, fmt.Errorf("%w: value of %s: %w", ErrBadRecord, k.TransactionalID, err)
	}
	if v.Version < 0 || v.Version > 1 || v.State < 0 || State(v.State) > PrepareEpochFence {
		return "", nil, fmt.Errorf("%w: value of %s: version %d state %d", ErrBadRecord, k.TransactionalID, v.Version, v.State)
	}
	m := &Metadata{
		TransactionalID: k.TransactionalID, ProducerID: v.ProducerID, ProducerEpoch: v.ProducerEpoch,
		LastProducerEpoch: -1, TimeoutMs: v.TimeoutMillis, State: State(v.State),
		StartTimestamp: v.StartTimestamp, LastUpdateTimestamp: v.LastUpdateTimestamp,
		ClientTV: v.ClientTransactionVersion, PrevProducerID: -1, NextProducerID: -1,
	}
	if v.Version >= 1 {
		m.PrevProducerID, m.NextProducerID = v.PreviousProducerID, v.NextProducerID
	}
	for _, t := range v.Topics {
		for _, p := range t.Partitions {
			m.add([]TopicPartition{{t.Topic, p}})
		}
	}
	return k.TransactionalID, m, nil
}
