package group_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
)

func TestJavaStringHashCode(t *testing.T) {
	for _, tc := range []struct {
		s    string
		hash int32
		p50  int32
	}{
		{"", 0, 0},
		{"a", 97, 47},
		{"ab", 3105, 5},
		{"my-group", -1906497762, 12},
		{"test-group", 627841412, 12},
		{"groupé", -1237460406, 6},
		{"😀", 1772899, 49},                     // a surrogate pair: two UTF-16 units
		{"polygenelubricants", -2147483648, 0}, // Utils.abs(MIN_VALUE) is 0
	} {
		if got := group.JavaStringHashCode(tc.s); got != tc.hash {
			t.Errorf("%q.hashCode() = %d, want %d", tc.s, got, tc.hash)
		}
		if got := group.PartitionFor(tc.s, 50); got != tc.p50 {
			t.Errorf("partitionFor(%q) = %d, want %d", tc.s, got, tc.p50)
		}
	}
}

func commitReq(g, member string, gen int32, topic string, offsets map[int32]int64) *kmsg.OffsetCommitRequest {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Version, req.Group, req.MemberID, req.Generation = 8, g, member, gen
	rt := kmsg.NewOffsetCommitRequestTopic()
	rt.Topic = topic
	for p := int32(0); p < int32(len(offsets)); p++ {
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		meta := "m"
		rp.Partition, rp.Offset, rp.Metadata, rp.LeaderEpoch = p, offsets[p], &meta, 0
		rt.Partitions = append(rt.Partitions, rp)
	}
	req.Topics = append(req.Topics, rt)
	return req
}

func fetchOffsets(t *testing.T, h *harness, g string) map[int32]int64 {
	t.Helper()
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Version = 9
	rg := kmsg.NewOffsetFetchRequestGroup()
	rg.Group = g
	req.Groups = append(req.Groups, rg) // null topics: everything
	resp := h.do("c", req).(*kmsg.OffsetFetchResponse)
	out := map[int32]int64{}
	for _, rt := range resp.Groups[0].Topics {
		for _, rp := range rt.Partitions {
			out[rp.Partition] = rp.Offset
		}
	}
	return out
}

func TestOffsetsSurviveRestart(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	ids := stableGroup(t, h, "g", 2)
	gen := h.b.Groups().Group("g").Generation()

	resp := h.do("c1", commitReq("g", ids[0], gen, "t", map[int32]int64{0: 10, 1: 11, 2: 12, 3: 13})).(*kmsg.OffsetCommitResponse)
	for _, p := range resp.Topics[0].Partitions {
		wantCode(t, "commit", p.ErrorCode, nil)
	}
	wantCode(t, "stale generation", h.do("c1", commitReq("g", ids[0], gen-1, "t", map[int32]int64{0: 1})).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, kerr.IllegalGeneration)
	wantCode(t, "unknown member", h.do("c1", commitReq("g", "x", gen, "t", map[int32]int64{0: 1})).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, kerr.UnknownMemberID)
	wantCode(t, "simple commit to a live group", h.do("c1", commitReq("g", "", -1, "t", map[int32]int64{0: 1})).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, kerr.UnknownMemberID)
	wantCode(t, "unknown topic", h.do("c1", commitReq("g", ids[0], gen, "nope", map[int32]int64{0: 1})).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, kerr.UnknownTopicOrPartition)

	// A simple consumer (no group management) commits to a group of its own.
	wantCode(t, "simple commit", h.do("s", commitReq("simple", "", -1, "t", map[int32]int64{0: 7})).(*kmsg.OffsetCommitResponse).Topics[0].Partitions[0].ErrorCode, nil)

	h.restart()
	if got := fetchOffsets(t, h, "g"); len(got) != 4 || got[0] != 10 || got[3] != 13 {
		t.Fatalf("after restart g has offsets %v", got)
	}
	if got := fetchOffsets(t, h, "simple"); got[0] != 7 {
		t.Fatalf("after restart simple has offsets %v", got)
	}
	g := h.b.Groups().Group("g")
	if g.State() != group.Stable || g.Generation() != gen {
		t.Fatalf("restored group is %s generation %d, want Stable %d", g.State(), g.Generation(), gen)
	}
	// The members were restored too, and may go on heartbeating.
	wantCode(t, "heartbeat after restart", h.do("c1", heartbeatReq("g", ids[0], gen)).(*kmsg.HeartbeatResponse).ErrorCode, nil)

	// Unknown partitions read -1.
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Version, req.Group = 7, "g"
	req.Topics = []kmsg.OffsetFetchRequestTopic{{Topic: "t", Partitions: []int32{3, 9}}}
	fr := h.do("c", req).(*kmsg.OffsetFetchResponse)
	if ps := fr.Topics[0].Partitions; ps[0].Offset != 13 || ps[0].LeaderEpoch != 0 || *ps[0].Metadata != "m" || ps[1].Offset != -1 {
		t.Fatalf("fetch v7: %+v", ps)
	}
}

func TestDeleteListDescribe(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	ids := stableGroup(t, h, "live", 1)
	h.do("s", commitReq("idle", "", -1, "t", map[int32]int64{0: 5}))

	lr := kmsg.NewPtrListGroupsRequest()
	lr.Version = 5
	lg := h.do("c", lr).(*kmsg.ListGroupsResponse)
	if len(lg.Groups) != 2 || lg.Groups[0].Group != "idle" || lg.Groups[0].GroupState != "Empty" || lg.Groups[1].GroupState != "Stable" || lg.Groups[1].GroupType != "classic" {
		t.Fatalf("ListGroups: %+v", lg.Groups)
	}
	lr.StatesFilter = []string{"stable"}
	if lg := h.do("c", lr).(*kmsg.ListGroupsResponse); len(lg.Groups) != 1 || lg.Groups[0].Group != "live" {
		t.Fatalf("ListGroups stable: %+v", lg.Groups)
	}

	dr := kmsg.NewPtrDescribeGroupsRequest()
	dr.Version, dr.Groups = 5, []string{"live", "missing"}
	dg := h.do("c", dr).(*kmsg.DescribeGroupsResponse)
	if g := dg.Groups[0]; g.State != "Stable" || g.Protocol != "cooperative-sticky" || len(g.Members) != 1 || g.Members[0].MemberID != ids[0] || len(g.Members[0].MemberAssignment) == 0 {
		t.Fatalf("DescribeGroups live: %+v", g)
	}
	if g := dg.Groups[1]; g.State != "Dead" || g.ErrorCode != 0 {
		t.Fatalf("DescribeGroups missing: %+v", g)
	}

	del := kmsg.NewPtrDeleteGroupsRequest()
	del.Version, del.Groups = 2, []string{"live", "idle", "missing"}
	dl := h.do("c", del).(*kmsg.DeleteGroupsResponse)
	wantCode(t, "delete live", dl.Groups[0].ErrorCode, kerr.NonEmptyGroup)
	wantCode(t, "delete idle", dl.Groups[1].ErrorCode, nil)
	wantCode(t, "delete missing", dl.Groups[2].ErrorCode, kerr.GroupIDNotFound)
	h.restart()
	if h.b.Groups().Group("idle") != nil || len(fetchOffsets(t, h, "idle")) != 0 {
		t.Fatal("the deleted group came back after a restart")
	}
}

func TestOffsetDelete(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	topicReq(t, h, "u", 1)
	ids := stableGroup(t, h, "g", 1)
	h.do("c1", commitReq("g", ids[0], 1, "t", map[int32]int64{0: 1}))
	h.do("c1", commitReq("g", ids[0], 1, "u", map[int32]int64{0: 2}))
	req := kmsg.NewPtrOffsetDeleteRequest()
	req.Group = "g"
	req.Topics = []kmsg.OffsetDeleteRequestTopic{{Topic: "t", Partitions: []kmsg.OffsetDeleteRequestTopicPartition{{Partition: 0}}}, {Topic: "u", Partitions: []kmsg.OffsetDeleteRequestTopicPartition{{Partition: 0}}}}
	resp := h.do("c", req).(*kmsg.OffsetDeleteResponse)
	wantCode(t, "subscribed topic", resp.Topics[0].Partitions[0].ErrorCode, kerr.GroupSubscribedToTopic)
	wantCode(t, "other topic", resp.Topics[1].Partitions[0].ErrorCode, nil)
	h.restart()
	if got := fetchOffsets(t, h, "g"); len(got) != 1 || got[0] != 1 {
		t.Fatalf("offsets after delete and restart: %v", got)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	e, err := group.DecodeEntry(group.EncodeOffsetKey("g", "t", 3), group.EncodeOffsetValue(42, 7, "meta", 1234))
	if err != nil || !e.IsOffset || e.Group != "g" || e.Topic != "t" || e.Partition != 3 || e.OffsetValue.Offset != 42 || e.OffsetValue.LeaderEpoch != 7 || e.OffsetValue.Metadata != "meta" || e.OffsetValue.CommitTimestamp != 1234 {
		t.Fatalf("offset record: %+v %v", e, err)
	}
	v := kmsg.NewGroupMetadataValue()
	p := "range"
	v.ProtocolType, v.Generation, v.Protocol = "consumer", 3, &p
	e, err = group.DecodeEntry(group.EncodeGroupKey("g"), group.EncodeGroupValue(&v))
	if err != nil || e.IsOffset || e.GroupValue.Version != group.GroupValueVersion || *e.GroupValue.Protocol != "range" || e.GroupValue.Generation != 3 {
		t.Fatalf("group record: %+v %v", e, err)
	}
	if e, err := group.DecodeEntry(group.EncodeGroupKey("g"), nil); err != nil || e.GroupValue != nil {
		t.Fatalf("tombstone: %+v %v", e, err)
	}
	if _, err := group.DecodeEntry([]byte{0}, nil); err == nil {
		t.Fatal("a one-byte key decoded")
	}
}

func FuzzDecodeEntry(f *testing.F) {
	f.Add(group.EncodeOffsetKey("g", "t", 1), group.EncodeOffsetValue(1, 2, "x", 3))
	f.Add(group.EncodeGroupKey("g"), []byte{0, 3, 0, 0})
	f.Fuzz(func(t *testing.T, key, value []byte) {
		_, _ = group.DecodeEntry(key, value)
	})
}

// TestOffsetsExpire: KIP-211. A group's offsets stay while it has members
// and expire offsets.retention.minutes after it became empty; a standalone
// consumer's offsets expire that long after their commit. Expired offsets
// get tombstones, so they stay gone after a restart.
func TestOffsetsExpire(t *testing.T) {
	h := newHarness(t, map[string]string{"offsets.retention.minutes": "1", "offsets.retention.check.interval.ms": "1000"})
	topicReq(t, h, "t", 2)
	ids := stableGroup(t, h, "g", 1)
	gen := h.b.Groups().Group("g").Generation()
	h.do("c1", commitReq("g", ids[0], gen, "t", map[int32]int64{0: 10, 1: 11}))
	h.do("s", commitReq("standalone", "", -1, "t", map[int32]int64{0: 5}))
	live := func(seconds int) {
		for range seconds {
			h.advance(1000)
			h.do("c1", heartbeatReq("g", ids[0], gen))
		}
	}
	live(30)
	h.do("s", commitReq("standalone", "", -1, "t", map[int32]int64{0: 5, 1: 6}))
	h.do("s", commitReq("standalone-2", "", -1, "t", map[int32]int64{0: 7}))
	// Standalone offsets expire a minute after their commit.
	live(40)
	if got := fetchOffsets(t, h, "standalone-2"); got[0] != 7 {
		t.Fatalf("standalone offsets 40 s after their commit: %v", got)
	}
	live(30)
	if got := fetchOffsets(t, h, "standalone-2"); len(got) != 0 || h.b.Groups().Group("standalone-2") != nil {
		t.Fatalf("standalone offsets 70 s after their commit: %v", got)
	}
	// Two minutes on, the member has kept its session: g keeps its offsets.
	live(30)
	if got := fetchOffsets(t, h, "g"); got[0] != 10 || got[1] != 11 {
		t.Fatalf("offsets of a live group expired: %v", got)
	}

	leave := kmsg.NewPtrLeaveGroupRequest()
	leave.Group, leave.MemberID = "g", ids[0]
	h.do("c1", leave)
	h.advance(30_000)
	if got := fetchOffsets(t, h, "g"); got[0] != 10 {
		t.Fatalf("offsets expired 30 s after the group emptied: %v", got)
	}
	h.advance(31_000)
	if got := fetchOffsets(t, h, "g"); len(got) != 0 {
		t.Fatalf("offsets a minute after the group emptied: %v", got)
	}
	if h.b.Groups().Group("g") != nil {
		t.Fatal("an empty group without offsets must be deleted")
	}
	h.restart()
	if got := fetchOffsets(t, h, "g"); len(got) != 0 {
		t.Fatalf("expired offsets came back after a restart: %v", got)
	}
}

// TestRestoredMembersKeepTheirBytes: a restart restores a classic group's
// members, their subscriptions and assignments, from a record early in
// __consumer_offsets; the offset commits after it fill more than the
// log's read buffer (1 MiB) before the replay ends. The members must come
// back with the bytes they had, not whatever the buffer read later.
func TestRestoredMembersKeepTheirBytes(t *testing.T) {
	h := newHarness(t, nil)
	topicReq(t, h, "t", 4)
	ids := stableGroup(t, h, "g", 2)
	gen := h.b.Groups().Group("g").Generation()
	describe := func() []kmsg.DescribeGroupsResponseGroupMember {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Version, req.Groups = 5, []string{"g"}
		ms := h.do("c", req).(*kmsg.DescribeGroupsResponse).Groups[0].Members
		for i := range ms { // the answer's bytes may alias the group's
			ms[i].ProtocolMetadata = bytes.Clone(ms[i].ProtocolMetadata)
			ms[i].MemberAssignment = bytes.Clone(ms[i].MemberAssignment)
		}
		return ms
	}
	before := describe()
	meta := strings.Repeat("x", 4000)
	for i := range 400 { // 400 commits of 4 x 4 KB: 6.4 MB after the group's record
		req := commitReq("g", ids[0], gen, "t", map[int32]int64{0: int64(i), 1: 1, 2: 2, 3: 3})
		for j := range req.Topics[0].Partitions {
			req.Topics[0].Partitions[j].Metadata = &meta
		}
		for _, p := range h.do("c1", req).(*kmsg.OffsetCommitResponse).Topics[0].Partitions {
			wantCode(t, "commit", p.ErrorCode, nil)
		}
	}
	h.restart()
	after := describe()
	if len(after) != len(before) {
		t.Fatalf("%d members after the restart, %d before", len(after), len(before))
	}
	for i := range before {
		if !bytes.Equal(after[i].ProtocolMetadata, before[i].ProtocolMetadata) || !bytes.Equal(after[i].MemberAssignment, before[i].MemberAssignment) {
			t.Errorf("member %s after the restart: metadata %x assignment %x; before: %x, %x", before[i].MemberID,
				after[i].ProtocolMetadata, after[i].MemberAssignment, before[i].ProtocolMetadata, before[i].MemberAssignment)
		}
	}
}
