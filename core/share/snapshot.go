package share

import (
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kbin"
)

// StateTopic is Kafka's internal topic of share-partition state.
const StateTopic = "__share_group_state"

// ErrBadSnapshot is returned for a __share_group_state record that does
// not decode.
var ErrBadSnapshot = errors.New("share: malformed __share_group_state record")

// Key names a share partition: the group, the topic id and partition.
type Key struct {
	Group     string
	TopicID   [16]byte
	Partition int32
}

// CoordinatorKey is the string Kafka hashes to place a share partition's
// state in __share_group_state, and FindCoordinator's key of type 2
// (KIP-932: "group:topicId:partition", the topic id as Kafka prints a
// Uuid, URL-safe base64 without padding).
func (k Key) CoordinatorKey() string {
	return fmt.Sprintf("%s:%s:%d", k.Group, base64.RawURLEncoding.EncodeToString(k.TopicID[:]), k.Partition)
}

// StateBatch is a run of offsets of a share partition's window in one
// persisted state with one delivery count: a state batch of
// ShareSnapshotValue and of the share coordinator's APIs (83-87).
type StateBatch struct {
	First, Last int64
	State       State
	Count       int16
}

// Batches is the window as persisted. As Kafka, a lock is not persisted:
// an acquired record is available with its delivery count, so after a
// restart or a move of its leader it is delivered again and counted.
func (p *Partition) Batches() []StateBatch {
	var bs []StateBatch
	for i, r := range p.recs {
		off, st := p.Start+int64(i), r.State
		if st == Acquired {
			st = Available
		}
		if n := len(bs) - 1; n >= 0 && bs[n].Last == off-1 && bs[n].State == st && bs[n].Count == r.Count {
			bs[n].Last = off
			continue
		}
		bs = append(bs, StateBatch{off, off, st, r.Count})
	}
	return bs
}

// Snapshot is a copy of the state as persisted: the window (Batches) and
// the state and leader epochs, without locks.
func (p *Partition) Snapshot() *Partition {
	c, _ := FromBatches(p.Start, p.Batches())
	c.StateEpoch, c.LeaderEpoch = p.StateEpoch, p.LeaderEpoch
	return c
}

// FromBatches is the share partition persisted as start and batches
// (ordered, not overlapping; offsets between them are archived).
func FromBatches(start int64, bs []StateBatch) (*Partition, error) {
	p := NewPartition(start)
	for _, b := range bs {
		if b.First < p.End() || b.Last < b.First || b.Last-b.First > 1<<20 {
			return nil, fmt.Errorf("%w: state batch %d..%d after offset %d", ErrBadSnapshot, b.First, b.Last, p.End())
		}
		for off := p.End(); off <= b.Last; off++ {
			r := Record{State: b.State, Count: b.Count}
			if off < b.First {
				r.State = Archived
			}
			p.recs = append(p.recs, r)
		}
	}
	return p, nil
}

// EncodeSnapshot is one ShareSnapshot record of __share_group_state, in
// the layout of Kafka's ShareSnapshotKey (record type 0: group, topic id,
// partition) and ShareSnapshotValue v0 (flexible: snapshot epoch, state
// epoch, leader epoch, start offset, create and write timestamps, and the
// state batches of the window: first and last offset, delivery state and
// count, as Batches gives them).
func EncodeSnapshot(k Key, p *Partition, now int64) (key, value []byte) {
	key = kbin.AppendInt16(nil, 0)
	key = kbin.AppendString(key, k.Group)
	key = kbin.AppendUuid(key, k.TopicID)
	key = kbin.AppendInt32(key, k.Partition)

	bs := p.Batches()
	v := kbin.AppendInt16(nil, 0)
	v = kbin.AppendInt32(v, 0) // snapshot epoch
	v = kbin.AppendInt32(v, p.StateEpoch)
	v = kbin.AppendInt32(v, p.LeaderEpoch)
	v = kbin.AppendInt64(v, p.Start)
	v = kbin.AppendInt64(v, now) // create timestamp
	v = kbin.AppendInt64(v, now) // write timestamp
	v = kbin.AppendCompactArrayLen(v, len(bs))
	for _, b := range bs {
		v = kbin.AppendInt64(v, b.First)
		v = kbin.AppendInt64(v, b.Last)
		v = kbin.AppendInt8(v, int8(b.State))
		v = kbin.AppendInt16(v, b.Count)
		v = kbin.AppendUvarint(v, 0) // no tagged fields
	}
	return key, kbin.AppendUvarint(v, 0)
}

// DecodeSnapshot reads a record written by EncodeSnapshot. ok is false
// for a record of another type (Kafka's ShareUpdate, type 1), which
// Gregor does not write; p is nil for a tombstone.
func DecodeSnapshot(key, value []byte) (k Key, p *Partition, ok bool, err error) {
	kr := kbin.Reader{Src: key}
	if kr.Int16() != 0 {
		return Key{}, nil, false, nil
	}
	k.Group, k.TopicID, k.Partition = kr.String(), kr.Uuid(), kr.Int32()
	if err := kr.Complete(); err != nil {
		return Key{}, nil, false, fmt.Errorf("%w: key: %v", ErrBadSnapshot, err)
	}
	if value == nil {
		return k, nil, true, nil
	}
	vr := kbin.Reader{Src: value}
	vr.Int16()
	vr.Int32()
	stateEpoch, leaderEpoch, start := vr.Int32(), vr.Int32(), vr.Int64()
	vr.Int64()
	vr.Int64()
	var bs []StateBatch
	for n := vr.CompactArrayLen(); n > 0 && vr.Ok(); n-- {
		bs = append(bs, StateBatch{vr.Int64(), vr.Int64(), State(vr.Int8()), vr.Int16()})
		vr.Uvarint()
	}
	vr.Uvarint()
	if err := vr.Complete(); err != nil {
		return Key{}, nil, false, fmt.Errorf("%w: value: %v", ErrBadSnapshot, err)
	}
	if p, err = FromBatches(start, bs); err != nil {
		return Key{}, nil, false, err
	}
	p.StateEpoch, p.LeaderEpoch = stateEpoch, leaderEpoch
	return k, p, true, nil
}
