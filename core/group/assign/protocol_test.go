package assign

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestSubscriptionRoundTrip(t *testing.T) {
	m := Member{
		ID:         "m1",
		InstanceID: "i1",
		Topics:     []string{"b", "a", "b"},
		Owned:      []TopicPartition{tp("b", 1), tp("a", 2), tp("a", 0)},
		Generation: 7,
	}
	for _, protocol := range Names() {
		raw := EncodeSubscription(protocol, m)
		got, err := DecodeSubscription(protocol, "m1", "i1", raw)
		if err != nil {
			t.Fatalf("%s: %v", protocol, err)
		}
		if got.ID != "m1" || got.InstanceID != "i1" || got.Generation != 7 ||
			!slices.Equal(got.Topics, []string{"a", "b"}) ||
			!slices.Equal(got.Owned, []TopicPartition{tp("a", 0), tp("a", 2), tp("b", 1)}) {
			t.Errorf("%s: round trip gave %+v", protocol, got)
		}
		// The wire form is Kafka's: check it with kmsg directly.
		var md kmsg.ConsumerMemberMetadata
		if err := md.ReadFrom(raw); err != nil {
			t.Fatal(err)
		}
		if md.Version != 3 || md.Generation != 7 {
			t.Errorf("%s: version %d generation %d", protocol, md.Version, md.Generation)
		}
		if protocol == "sticky" {
			// Eager: nothing owned on the wire, the history in user data.
			var sm kmsg.StickyMemberMetadata
			if len(md.OwnedPartitions) != 0 || sm.ReadFrom(md.UserData) != nil || sm.Generation != 7 || len(sm.CurrentAssignment) != 2 {
				t.Errorf("sticky: owned %v, user data %+v", md.OwnedPartitions, sm)
			}
		} else if len(md.OwnedPartitions) != 2 || md.UserData != nil {
			t.Errorf("%s: owned %v, user data %x", protocol, md.OwnedPartitions, md.UserData)
		}
	}
}

// Subscriptions as older clients write them: v0 has no owned partitions and
// no generation; a sticky v0 user data has no generation either.
func TestSubscriptionOlderVersions(t *testing.T) {
	v0 := kmsg.NewConsumerMemberMetadata()
	v0.Topics = []string{"t"}
	sm := kmsg.NewStickyMemberMetadata() // generation -1: written as v0
	sm.CurrentAssignment = []kmsg.StickyMemberMetadataCurrentAssignment{{Topic: "t", Partitions: []int32{3, 1}}}
	v0.UserData = sm.AppendTo(nil)
	raw := v0.AppendTo(nil)

	m, err := DecodeSubscription("range", "m", "", raw)
	if err != nil || m.Generation != -1 || len(m.Owned) != 0 || !slices.Equal(m.Topics, []string{"t"}) {
		t.Errorf("range v0: %+v, %v", m, err)
	}
	m, err = DecodeSubscription("sticky", "m", "", raw)
	if err != nil || m.Generation != -1 || !slices.Equal(m.Owned, []TopicPartition{tp("t", 1), tp("t", 3)}) {
		t.Errorf("sticky v0: %+v, %v", m, err)
	}
	// Sticky user data v1 carries the generation (KIP-341).
	sm.Generation = 9
	v0.UserData = sm.AppendTo(nil)
	m, err = DecodeSubscription("sticky", "m", "", v0.AppendTo(nil))
	if err != nil || m.Generation != 9 {
		t.Errorf("sticky v1: %+v, %v", m, err)
	}
	// A v1 subscription has owned partitions but no generation.
	v1 := kmsg.NewConsumerMemberMetadata()
	v1.Version = 1
	v1.Topics = []string{"t"}
	v1.Generation = 4 // not written in v1
	v1.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{{Topic: "t", Partitions: []int32{2}}}
	m, err = DecodeSubscription("cooperative-sticky", "m", "", v1.AppendTo(nil))
	if err != nil || m.Generation != -1 || !slices.Equal(m.Owned, []TopicPartition{tp("t", 2)}) {
		t.Errorf("v1: %+v, %v", m, err)
	}
}

func TestDecodeErrors(t *testing.T) {
	if _, err := DecodeSubscription("range", "m", "", []byte{0, 0, 0}); !errors.Is(err, ErrBadSubscription) {
		t.Errorf("short subscription: %v", err)
	}
	if _, err := DecodeSubscription("range", "m", "", []byte{0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}); !errors.Is(err, ErrBadSubscription) {
		t.Errorf("negative version: %v", err)
	}
	if _, err := DecodeAssignment([]byte{0, 0, 0, 0, 0, 9}); !errors.Is(err, ErrBadAssignment) {
		t.Errorf("short assignment: %v", err)
	}
	if tps, err := DecodeAssignment(nil); err != nil || len(tps) != 0 {
		t.Errorf("empty assignment: %v, %v", tps, err)
	}
	// Sticky user data declaring 2^31-1 assignments must be refused
	// before kmsg sizes a slice by it; the member then just has no
	// history.
	md := kmsg.NewConsumerMemberMetadata()
	md.Topics = []string{"t"}
	md.UserData = []byte{0x7f, 0xff, 0xff, 0xff, 0, 1, 't'}
	m, err := DecodeSubscription("sticky", "m", "", md.AppendTo(nil))
	if err != nil || len(m.Owned) != 0 {
		t.Errorf("hostile user data: %+v, %v", m, err)
	}
}

func TestAssignmentRoundTrip(t *testing.T) {
	in := []TopicPartition{tp("b", 0), tp("a", 1), tp("a", 0), tp("a", 1)}
	raw := EncodeAssignment(in)
	var ma kmsg.ConsumerMemberAssignment
	if err := ma.ReadFrom(raw); err != nil {
		t.Fatal(err)
	}
	if len(ma.Topics) != 2 || ma.Topics[0].Topic != "a" || !slices.Equal(ma.Topics[0].Partitions, []int32{0, 1}) {
		t.Errorf("wire form %+v", ma)
	}
	got, err := DecodeAssignment(raw)
	if err != nil || !slices.Equal(got, []TopicPartition{tp("a", 0), tp("a", 1), tp("b", 0)}) {
		t.Errorf("round trip %v, %v", got, err)
	}
}

// A leader simulated in core: the JoinGroup response's members in, the
// SyncGroup request's assignments out, byte for byte what a Kafka
// consumer reads.
func TestLead(t *testing.T) {
	topics := map[string]int32{"T1": 10, "T2": 10}
	var members []kmsg.JoinGroupResponseMember
	for _, id := range []string{"C3-0", "C1-0", "C2-0"} {
		jm := kmsg.NewJoinGroupResponseMember()
		jm.MemberID = id
		jm.ProtocolMetadata = EncodeSubscription("range", Member{ID: id, Topics: []string{"T1", "T2"}, Generation: -1})
		members = append(members, jm)
	}
	sync, a, err := Lead(Range, members, topics)
	if err != nil {
		t.Fatal(err)
	}
	if a.Count("C1-0") != 8 || len(sync) != 3 {
		t.Fatalf("assignment\n%s\nsync %d", a, len(sync))
	}
	for i, id := range []string{"C1-0", "C2-0", "C3-0"} {
		if sync[i].MemberID != id {
			t.Errorf("sync[%d] is %s", i, sync[i].MemberID)
		}
		got, err := DecodeAssignment(sync[i].MemberAssignment)
		if err != nil || !slices.Equal(got, a[id]) {
			t.Errorf("%s: decoded %v, %v; want %v", id, got, err, a[id])
		}
	}

	bad := kmsg.NewJoinGroupResponseMember()
	bad.MemberID = "broken"
	bad.ProtocolMetadata = []byte{1}
	if _, _, err := Lead(Range, append(members, bad), topics); !errors.Is(err, ErrBadSubscription) {
		t.Errorf("bad member: %v", err)
	}
}

func FuzzDecodeSubscription(f *testing.F) {
	m := Member{Topics: []string{"a", "b"}, Owned: []TopicPartition{tp("a", 1)}, Generation: 3}
	for _, protocol := range Names() {
		f.Add(protocol, EncodeSubscription(protocol, m))
	}
	f.Add("sticky", []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0x7f, 0xff, 0xff, 0xff, 0})
	f.Add("range", []byte{})
	f.Fuzz(func(t *testing.T, protocol string, b []byte) {
		got, err := DecodeSubscription(protocol, "m", "", b)
		if err != nil {
			return
		}
		// What decodes re-encodes to something that decodes the same.
		again, err := DecodeSubscription(protocol, "m", "", EncodeSubscription(protocol, got))
		if err != nil {
			t.Fatalf("re-encoded subscription does not decode: %v", err)
		}
		slices.Sort(got.Topics)
		got.Topics = slices.Compact(got.Topics)
		got.Owned = slices.Compact(got.Owned)
		if !slices.Equal(again.Topics, got.Topics) || !slices.Equal(again.Owned, got.Owned) || again.Generation != got.Generation {
			t.Fatalf("round trip changed %+v into %+v", got, again)
		}
	})
}

func FuzzDecodeAssignment(f *testing.F) {
	f.Add(EncodeAssignment([]TopicPartition{tp("a", 0), tp("b", 7)}))
	f.Add([]byte{0, 0, 0x7f, 0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := DecodeAssignment(b)
		if err != nil {
			return
		}
		again, err := DecodeAssignment(EncodeAssignment(got))
		if err != nil || !slices.Equal(again, slices.Compact(slices.Clone(got))) {
			t.Fatalf("round trip of %v gave %v, %v", got, again, err)
		}
		if len(b) > 0 && !bytes.Equal(EncodeAssignment(again), EncodeAssignment(got)) {
			t.Fatal("encoding not canonical")
		}
	})
}
