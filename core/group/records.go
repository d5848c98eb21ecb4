package group

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The record schemas of __consumer_offsets, as Kafka writes them (its
// OffsetCommitKey/Value and GroupMetadataKey/Value message definitions,
// kmsg's types of the same names). The key's leading int16 says what the
// record is: 0 or 1 an offset commit, 2 a group's metadata; Kafka's KIP-848
// records use 3 and up (consumer_records.go reads and writes 3, 5-8;
// DecodeEntry marks them Skipped).
// A record with a null value is a tombstone: the key's offset or group is
// deleted.
const (
	OffsetKeyVersion   int16 = 1 // group, topic, partition
	OffsetValueVersion int16 = 3 // offset, leader epoch (KIP-320), metadata, commit timestamp
	GroupKeyVersion    int16 = 2 // group
	GroupValueVersion  int16 = 3 // adds group.instance.id (KIP-345)
)

// ErrBadRecord is returned for a __consumer_offsets record that does not
// decode.
var ErrBadRecord = errors.New("group: malformed __consumer_offsets record")

// EncodeOffsetKey is the key of a committed offset.
func EncodeOffsetKey(group, topic string, partition int32) []byte {
	k := kmsg.NewOffsetCommitKey()
	k.Version, k.Group, k.Topic, k.Partition = OffsetKeyVersion, group, topic, partition
	return k.AppendTo(nil)
}

// EncodeOffsetValue is the value of a committed offset.
func EncodeOffsetValue(offset int64, leaderEpoch int32, metadata string, commitTimestamp int64) []byte {
	v := kmsg.NewOffsetCommitValue()
	v.Version = OffsetValueVersion
	v.Offset, v.LeaderEpoch, v.Metadata, v.CommitTimestamp = offset, leaderEpoch, metadata, commitTimestamp
	return v.AppendTo(nil)
}

// EncodeGroupKey is the key of a group's metadata.
func EncodeGroupKey(group string) []byte {
	k := kmsg.NewGroupMetadataKey()
	k.Version, k.Group = GroupKeyVersion, group
	return k.AppendTo(nil)
}

// EncodeGroupValue is the value of a group's metadata; v.Version is
// overwritten with GroupValueVersion.
func EncodeGroupValue(v *kmsg.GroupMetadataValue) []byte {
	c := *v
	c.Version = GroupValueVersion
	return c.AppendTo(nil)
}

// Entry is one decoded __consumer_offsets record.
type Entry struct {
	// Group is the group the record belongs to.
	Group string
	// Offset is set for an offset record; Topic and Partition name it.
	// OffsetValue is nil for a tombstone.
	IsOffset    bool
	Topic       string
	Partition   int32
	OffsetValue *kmsg.OffsetCommitValue
	// GroupValue is the group metadata of a group record, nil for a
	// tombstone.
	GroupValue *kmsg.GroupMetadataValue
	// Skipped is set for a record kind this coordinator does not keep
	// (KIP-848 records); only Group is unset then.
	Skipped bool
}

// DecodeEntry decodes one __consumer_offsets record.
func DecodeEntry(key, value []byte) (Entry, error) {
	if len(key) < 2 {
		return Entry{}, fmt.Errorf("%w: key of %d bytes", ErrBadRecord, len(key))
	}
	var e Entry
	switch ver := int16(binary.BigEndian.Uint16(key)); ver {
	case 0, 1:
		var k kmsg.OffsetCommitKey
		if err := k.ReadFrom(key); err != nil {
			return Entry{}, fmt.Errorf("%w: offset key: %v", ErrBadRecord, err)
		}
		e.IsOffset, e.Group, e.Topic, e.Partition = true, k.Group, k.Topic, k.Partition
		if value != nil {
			v := new(kmsg.OffsetCommitValue)
			if err := v.ReadFrom(value); err != nil {
				return Entry{}, fmt.Errorf("%w: offset value: %v", ErrBadRecord, err)
			}
			e.OffsetValue = v
		}
	case 2:
		var k kmsg.GroupMetadataKey
		if err := k.ReadFrom(key); err != nil {
			return Entry{}, fmt.Errorf("%w: group key: %v", ErrBadRecord, err)
		}
		e.Group = k.Group
		if value != nil {
			v := new(kmsg.GroupMetadataValue)
			if err := v.ReadFrom(value); err != nil {
				return Entry{}, fmt.Errorf("%w: group value: %v", ErrBadRecord, err)
			}
			e.GroupValue = v
		}
	default:
		if ver < 0 {
			return Entry{}, fmt.Errorf("%w: key version %d", ErrBadRecord, ver)
		}
		e.Skipped = true
	}
	return e, nil
}
