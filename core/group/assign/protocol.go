package assign

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Sentinel errors of the consumer-protocol codecs; returned errors wrap
// them with %w.
var (
	// ErrBadSubscription: JoinGroup protocol metadata that is not a
	// ConsumerProtocolSubscription.
	ErrBadSubscription = errors.New("assign: malformed consumer protocol subscription")
	// ErrBadAssignment: SyncGroup member assignment bytes that are not a
	// ConsumerProtocolAssignment.
	ErrBadAssignment = errors.New("assign: malformed consumer protocol assignment")
)

// Versions written. Every version of each shares the fields that come
// before its newest ones, and readers accept newer versions than they
// know, as Kafka's ConsumerProtocol does.
const (
	// SubscriptionVersion 3 carries OwnedPartitions (v1, KIP-429),
	// Generation (v2, KIP-792) and Rack (v3, KIP-881; written null).
	SubscriptionVersion int16 = 3
	// AssignmentVersion 0: the same layout as every later version, and the
	// one every client reads.
	AssignmentVersion int16 = 0
)

// EncodeSubscription returns the JoinGroup protocol metadata (a
// ConsumerProtocolSubscription, kmsg.ConsumerMemberMetadata) that m's
// client sends for the named protocol.
//
// For the eager "sticky" protocol, Owned and Generation travel in the user
// data as StickyAssignorUserData v1 (KIP-54, KIP-341), and OwnedPartitions
// is empty, since an eager member has revoked everything before it
// rejoins; for every other protocol Owned travels in OwnedPartitions.
func EncodeSubscription(protocol string, m Member) []byte {
	md := kmsg.NewConsumerMemberMetadata()
	md.Version = SubscriptionVersion
	md.Topics = slices.Compact(slices.Sorted(slices.Values(m.Topics)))
	md.Generation = m.Generation
	owned := byTopic(m.Owned)
	if protocol == "sticky" {
		sm := kmsg.NewStickyMemberMetadata()
		sm.Generation = m.Generation
		for _, t := range owned {
			sm.CurrentAssignment = append(sm.CurrentAssignment, kmsg.StickyMemberMetadataCurrentAssignment{Topic: t.topic, Partitions: t.partitions})
		}
		md.UserData = sm.AppendTo(nil)
	} else {
		for _, t := range owned {
			md.OwnedPartitions = append(md.OwnedPartitions, kmsg.ConsumerMemberMetadataOwnedPartition{Topic: t.topic, Partitions: t.partitions})
		}
	}
	return md.AppendTo(nil)
}

// DecodeSubscription reads the JoinGroup protocol metadata a member sent
// for the named protocol. Owned and Generation come from OwnedPartitions
// and Generation; for "sticky", from the user data when it holds a
// StickyAssignorUserData (whose generation is -1 in its v0). Members
// without a generation get -1.
func DecodeSubscription(protocol, memberID, instanceID string, metadata []byte) (Member, error) {
	var md kmsg.ConsumerMemberMetadata
	if err := md.ReadFrom(metadata); err != nil {
		return Member{}, fmt.Errorf("%w: member %q: %v", ErrBadSubscription, memberID, err)
	}
	if md.Version < 0 {
		return Member{}, fmt.Errorf("%w: member %q: version %d", ErrBadSubscription, memberID, md.Version)
	}
	m := Member{ID: memberID, InstanceID: instanceID, Topics: md.Topics, Generation: -1}
	if md.Version >= 2 {
		m.Generation = md.Generation
	}
	for _, t := range md.OwnedPartitions {
		for _, p := range t.Partitions {
			m.Owned = append(m.Owned, TopicPartition{t.Topic, p})
		}
	}
	if protocol == "sticky" && len(md.UserData) > 0 && stickyUserDataFits(md.UserData) {
		var sm kmsg.StickyMemberMetadata
		if sm.ReadFrom(md.UserData) == nil {
			m.Owned, m.Generation = nil, sm.Generation
			for _, t := range sm.CurrentAssignment {
				for _, p := range t.Partitions {
					m.Owned = append(m.Owned, TopicPartition{t.Topic, p})
				}
			}
		}
	}
	SortPartitions(m.Owned)
	return m, nil
}

// stickyUserDataFits walks StickyAssignorUserData without allocating and
// reports whether every array it declares fits in the bytes given. kmsg's
// decoder for this unversioned type sizes its slices from the declared
// lengths, so a hostile length must be refused before it gets there.
func stickyUserDataFits(b []byte) bool {
	i32 := func() (int32, bool) {
		if len(b) < 4 {
			return 0, false
		}
		v := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		return v, true
	}
	n, ok := i32()
	if !ok {
		return false
	}
	for range max(n, 0) {
		if len(b) < 2 {
			return false
		}
		l := int16(binary.BigEndian.Uint16(b))
		if b = b[2:]; l < 0 || int(l) > len(b) {
			return false
		}
		b = b[l:]
		np, ok := i32()
		if !ok || int64(max(np, 0))*4 > int64(len(b)) {
			return false
		}
		b = b[max(np, 0)*4:]
	}
	return len(b) == 0 || len(b) >= 4 // v1 adds the generation
}

// EncodeAssignment returns the SyncGroup member assignment (a
// ConsumerProtocolAssignment, kmsg.ConsumerMemberAssignment) for one
// member's partitions, topics and partitions in order.
func EncodeAssignment(tps []TopicPartition) []byte {
	ma := kmsg.NewConsumerMemberAssignment()
	ma.Version = AssignmentVersion
	for _, t := range byTopic(tps) {
		ma.Topics = append(ma.Topics, kmsg.ConsumerMemberAssignmentTopic{Topic: t.topic, Partitions: t.partitions})
	}
	return ma.AppendTo(nil)
}

// DecodeAssignment reads SyncGroup member assignment bytes into sorted
// partitions. Empty bytes are an empty assignment, as Kafka's consumer
// treats them.
func DecodeAssignment(b []byte) ([]TopicPartition, error) {
	if len(b) == 0 {
		return []TopicPartition{}, nil
	}
	var ma kmsg.ConsumerMemberAssignment
	if err := ma.ReadFrom(b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadAssignment, err)
	}
	if ma.Version < 0 {
		return nil, fmt.Errorf("%w: version %d", ErrBadAssignment, ma.Version)
	}
	tps := []TopicPartition{}
	for _, t := range ma.Topics {
		for _, p := range t.Partitions {
			tps = append(tps, TopicPartition{t.Topic, p})
		}
	}
	return SortPartitions(tps), nil
}

// Lead is the group leader's work in the classic protocol: decode the
// members of the JoinGroup response, run the assignor chosen for the
// group, and return the SyncGroup assignments (sorted by member id) with
// the assignment they encode. A member whose metadata does not decode
// fails the whole assignment, as it does in Kafka's consumer.
func Lead(a Assignor, members []kmsg.JoinGroupResponseMember, topics map[string]int32) ([]kmsg.SyncGroupRequestGroupAssignment, Assignment, error) {
	ms := make([]Member, 0, len(members))
	for _, jm := range members {
		instance := ""
		if jm.InstanceID != nil {
			instance = *jm.InstanceID
		}
		m, err := DecodeSubscription(a.Name(), jm.MemberID, instance, jm.ProtocolMetadata)
		if err != nil {
			return nil, nil, err
		}
		ms = append(ms, m)
	}
	result := a.Assign(ms, topics)
	return SyncGroupAssignments(result), result, nil
}

// SyncGroupAssignments encodes an assignment for a SyncGroup request, one
// entry per member in member-id order.
func SyncGroupAssignments(a Assignment) []kmsg.SyncGroupRequestGroupAssignment {
	out := make([]kmsg.SyncGroupRequestGroupAssignment, 0, len(a))
	for _, id := range a.Members() {
		sa := kmsg.NewSyncGroupRequestGroupAssignment()
		sa.MemberID = id
		sa.MemberAssignment = EncodeAssignment(a[id])
		out = append(out, sa)
	}
	return out
}

type topicPartitions struct {
	topic      string
	partitions []int32
}

// byTopic groups partitions by topic, both in order, dropping repeats.
func byTopic(tps []TopicPartition) []topicPartitions {
	sorted := slices.CompactFunc(SortPartitions(slices.Clone(tps)), func(a, b TopicPartition) bool { return a == b })
	var out []topicPartitions
	for _, tp := range sorted {
		if len(out) == 0 || out[len(out)-1].topic != tp.Topic {
			out = append(out, topicPartitions{topic: tp.Topic})
		}
		last := &out[len(out)-1]
		last.partitions = append(last.partitions, tp.Partition)
	}
	return out
}
