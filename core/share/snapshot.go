package share

import (
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
// state in __share_group_state ("group:topicId:partition").
func (k Key) CoordinatorKey() string {
	return fmt.Sprintf("%s:%x:%d", k.Group, k.TopicID, k.Partition)
}

// EncodeSnapshot is one ShareSnapshot record of __share_group_state, in
// the layout of Kafka's ShareSnapshotKey (record type 0: group, topic id,
// partition) and ShareSnapshotValue v0 (flexible: snapshot epoch, state
// epoch, leader epoch, start offset, create and write timestamps, and the
// state batches of the window: first and last offset, delivery state and
// count). As Kafka, a lock is not persisted: an acquired record is
// written available with its delivery count, so after a restart it is
// delivered again and counted.
func EncodeSnapshot(k Key, p *Partition, epoch int32, now int64) (key, value []byte) {
	key = kbin.AppendInt16(nil, 0)
	key = kbin.AppendString(key, k.Group)
	key = kbin.AppendUuid(key, k.TopicID)
	key = kbin.AppendInt32(key, k.Partition)

	type batch struct {
		first, last int64
		state       State
		count       int16
	}
	var bs []batch
	for i, r := range p.recs {
		off, st := p.Start+int64(i), r.State
		if st == Acquired {
			st = Available
		}
		if n := len(bs) - 1; n >= 0 && bs[n].last == off-1 && bs[n].state == st && bs[n].count == r.Count {
			bs[n].last = off
			continue
		}
		bs = append(bs, batch{off, off, st, r.Count})
	}
	v := kbin.AppendInt16(nil, 0)
	v = kbin.AppendInt32(v, epoch) // snapshot epoch
	v = kbin.AppendInt32(v, 0)     // state epoch
	v = kbin.AppendInt32(v, -1)    // leader epoch
	v = kbin.AppendInt64(v, p.Start)
	v = kbin.AppendInt64(v, now) // create timestamp
	v = kbin.AppendInt64(v, now) // write timestamp
	v = kbin.AppendCompactArrayLen(v, len(bs))
	for _, b := range bs {
		v = kbin.AppendInt64(v, b.first)
		v = kbin.AppendInt64(v, b.last)
		v = kbin.AppendInt8(v, int8(b.state))
		v = kbin.AppendInt16(v, b.count)
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
	vr.Int32()
	vr.Int32()
	p = NewPartition(vr.Int64())
	vr.Int64()
	vr.Int64()
	for n := vr.CompactArrayLen(); n > 0 && vr.Ok(); n-- {
		first, last, st, count := vr.Int64(), vr.Int64(), State(vr.Int8()), vr.Int16()
		vr.Uvarint()
		if first < p.End() || last < first || last-first > 1<<20 {
			return Key{}, nil, false, fmt.Errorf("%w: state batch %d..%d after offset %d", ErrBadSnapshot, first, last, p.End())
		}
		for off := p.End(); off <= last; off++ {
			r := Record{State: st, Count: count}
			if off < first {
				r.State = Archived
			}
			p.recs = append(p.recs, r)
		}
	}
	vr.Uvarint()
	if err := vr.Complete(); err != nil {
		return Key{}, nil, false, fmt.Errorf("%w: value: %v", ErrBadSnapshot, err)
	}
	return k, p, true, nil
}
