package broker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/share"
)

func shareHeartbeat(h *harness, member string, epoch int32, topics ...string) *kmsg.ShareGroupHeartbeatResponse {
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.SetVersion(1)
	req.GroupID, req.MemberID, req.MemberEpoch = "sg", member, epoch
	if topics != nil {
		req.SubscribedTopicNames = topics
	}
	return rt[*kmsg.ShareGroupHeartbeatResponse](h, req) // answered once its records are synced
}

// shareFetchReq fetches partition 0 of topic id at a session epoch, with
// acknowledgement batches (first, last, type triples).
func shareFetchReq(member string, id [16]byte, epoch, waitMs int32, acks ...int64) *kmsg.ShareFetchRequest {
	req := kmsg.NewPtrShareFetchRequest()
	req.SetVersion(1)
	req.GroupID, req.MemberID = kmsg.StringPtr("sg"), kmsg.StringPtr(member)
	req.ShareSessionEpoch, req.MaxWaitMillis, req.MaxBytes, req.MaxRecords = epoch, waitMs, 1<<20, 100
	rp := kmsg.NewShareFetchRequestTopicPartition()
	for i := 0; i+2 < len(acks); i += 3 {
		rp.AcknowledgementBatches = append(rp.AcknowledgementBatches, kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch{
			FirstOffset: acks[i], LastOffset: acks[i+1], AcknowledgeTypes: []int8{int8(acks[i+2])}})
	}
	req.Topics = []kmsg.ShareFetchRequestTopic{{TopicID: id, Partitions: []kmsg.ShareFetchRequestTopicPartition{rp}}}
	return req
}

func acquired(resp *kmsg.ShareFetchResponse) []kmsg.ShareFetchResponseTopicPartitionAcquiredRecord {
	if len(resp.Topics) == 0 || len(resp.Topics[0].Partitions) == 0 {
		return nil
	}
	return resp.Topics[0].Partitions[0].AcquiredRecords
}

// noNullRecords: a partition of a ShareFetch answer that carries no
// records carries empty ones, never null, as Kafka's do (librdkafka drops
// a response with a null one: newShareFetchPartition).
func noNullRecords(t *testing.T, resp *kmsg.ShareFetchResponse) {
	t.Helper()
	n := 0
	for _, tp := range resp.Topics {
		for _, p := range tp.Partitions {
			n++
			if p.Records == nil {
				t.Errorf("partition %d of a ShareFetch answer has null records", p.Partition)
			}
		}
	}
	if n == 0 {
		t.Errorf("a ShareFetch answer with no partitions: %+v", resp)
	}
}

// Two members share one partition: each gets the records the other does
// not hold; a lock that expires on the broker's clock redelivers; an
// acknowledgement of another member's record is refused; a waiting share
// fetch is answered by a produce; and after a restart the start offset and
// delivery counts are back, read from __share_group_state.
func TestShareGroupOnePartition(t *testing.T) {
	h := newHarness(t, map[string]string{"share.auto.offset.reset": "earliest"})
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("a", "b", "c")))

	for _, m := range []string{"m1", "m2"} {
		hb := shareHeartbeat(h, m, 0, "t")
		if hb.ErrorCode != 0 || hb.Assignment == nil || len(hb.Assignment.TopicPartitions) != 1 {
			t.Fatalf("%s join: %+v", m, hb)
		}
	}
	if hb := shareHeartbeat(h, "m1", 1, "t"); hb.ErrorCode != 0 || hb.MemberEpoch != 2 || len(hb.Assignment.TopicPartitions[0].Partitions) != 1 {
		t.Fatalf("m1 keeps partition 0 beside m2: %+v", hb)
	}

	r1 := call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 0, 0))
	if a := acquired(r1); len(a) != 1 || a[0].FirstOffset != 0 || a[0].LastOffset != 2 || len(r1.Topics[0].Partitions[0].Records) == 0 {
		t.Fatalf("m1 fetch: %+v", r1)
	}
	if out := h.send(shareFetchReq("m2", id, 0, 500)); len(out) != 0 {
		t.Fatalf("m2 got records m1 holds: %+v", out[0].Msg)
	}
	h.now += 100
	out := h.send(produceReq("t", 0, 1, batchOf("d")))
	if len(out) != 2 {
		t.Fatalf("the produce did not wake m2's share fetch: %d answers", len(out))
	}
	r2, ok := out[0].Msg.(*kmsg.ShareFetchResponse)
	if !ok {
		r2 = out[1].Msg.(*kmsg.ShareFetchResponse)
	}
	if a := acquired(r2); len(a) != 1 || a[0].FirstOffset != 3 || a[0].LastOffset != 3 {
		t.Fatalf("m2 fetch: %+v", a)
	}

	// m1 accepts 0, releases 1, and acknowledges 3, which m2 holds.
	r1 = call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 1, 0, 0, 0, 1, 1, 1, 2, 3, 3, 1))
	if code := r1.Topics[0].Partitions[0].AcknowledgeErrorCode; code != kerr.InvalidRecordState.Code {
		t.Fatalf("acknowledging m2's record: %v", kerr.ErrorForCode(code))
	}
	noNullRecords(t, r1)
	r1 = call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 2, 0, 0, 0, 1, 1, 1, 2))
	if p := r1.Topics[0].Partitions[0]; p.AcknowledgeErrorCode != 0 || len(p.AcquiredRecords) != 1 || p.AcquiredRecords[0].FirstOffset != 1 || p.AcquiredRecords[0].DeliveryCount != 2 {
		t.Fatalf("accept 0, release 1: %+v", p)
	}
	// m1 now holds 1 and 2; their locks expire 30 s after its fetch.
	h.now += 29_000
	h.b.Tick(h.now)
	if got := h.send(shareFetchReq("m2", id, 1, 0)); len(acquired(got[0].Msg.(*kmsg.ShareFetchResponse))) != 0 {
		t.Fatalf("m2 acquired records m1 still holds")
	} else {
		noNullRecords(t, got[0].Msg.(*kmsg.ShareFetchResponse))
	}
	h.now += 1_000
	h.b.Tick(h.now)
	r2 = call[*kmsg.ShareFetchResponse](h, shareFetchReq("m2", id, 2, 0))
	if a := acquired(r2); len(a) != 2 || a[0].FirstOffset != 1 || a[0].DeliveryCount != 3 || a[1].FirstOffset != 2 || a[1].LastOffset != 3 || a[1].DeliveryCount != 2 {
		t.Fatalf("redelivery after the lock expired: %+v", a)
	}

	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	h.open()
	// The share coordinator reloaded the state; the leader reads it
	// through ReadShareGroupState (84) as it would from another broker
	// (in the noquorum build, which does not serve 84, from the
	// coordinator's state directly).
	st := readShareState(h, "sg", id, 0)
	if st.ErrorCode != 0 || st.StartOffset != 1 || len(st.StateBatches) != 2 {
		t.Fatalf("share partition after restart: %+v", st)
	}
	// m2's lock on 3 expired too: all available, delivered 3, 2, 2 times.
	if b0, b1 := st.StateBatches[0], st.StateBatches[1]; b0.FirstOffset != 1 || b0.LastOffset != 1 || b0.DeliveryCount != 3 || b0.DeliveryState != 0 ||
		b1.FirstOffset != 2 || b1.LastOffset != 3 || b1.DeliveryCount != 2 || b1.DeliveryState != 0 {
		t.Errorf("state batches after restart: %+v", st.StateBatches)
	}
	// Membership was replayed from __consumer_offsets: m1 goes on at its
	// epoch, without joining again.
	if hb := shareHeartbeat(h, "m1", 2); hb.ErrorCode != 0 || hb.MemberEpoch != 2 {
		t.Fatalf("membership after restart: %+v", hb)
	}
}

func TestShareGroupAdmin(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	id := h.b.topics["t"].ID
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("a", "b")))
	shareHeartbeat(h, "m1", 0, "t")
	call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 0, 0))

	cg := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	cg.Group, cg.MemberID, cg.SubscribedTopicNames = "sg", "c1", []string{"t"}
	if r := call[*kmsg.ConsumerGroupHeartbeatResponse](h, cg); r.ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("a consumer joining a share group's id: %+v", r)
	}

	list := kmsg.NewPtrListGroupsRequest()
	list.SetVersion(5)
	list.TypesFilter = []string{"share"}
	if lr := call[*kmsg.ListGroupsResponse](h, list); len(lr.Groups) != 1 || lr.Groups[0].GroupType != "share" || lr.Groups[0].GroupState != "Stable" {
		t.Fatalf("ListGroups: %+v", lr.Groups)
	}
	d := kmsg.NewPtrShareGroupDescribeRequest()
	d.SetVersion(1)
	d.GroupIDs = []string{"sg", "nope"}
	dr := call[*kmsg.ShareGroupDescribeResponse](h, d)
	if g := dr.Groups[0]; g.ErrorCode != 0 || len(g.Members) != 1 || len(g.Members[0].Assignment.TopicPartitions[0].Partitions) != 2 || dr.Groups[1].ErrorCode != kerr.GroupIDNotFound.Code {
		t.Fatalf("ShareGroupDescribe: %+v", dr.Groups)
	}

	// latest: the group starts at the high watermark, 2.
	dso := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	dso.SetVersion(1)
	dso.Groups = []kmsg.DescribeShareGroupOffsetsRequestGroup{{GroupID: "sg", Topics: []kmsg.DescribeShareGroupOffsetsRequestGroupTopic{{Topic: "t", Partitions: []int32{0, 1}}}}}
	ps := call[*kmsg.DescribeShareGroupOffsetsResponse](h, dso).Groups[0].Topics[0].Partitions
	if ps[0].StartOffset != 2 || ps[0].Lag != 0 || ps[1].StartOffset != -1 {
		t.Fatalf("DescribeShareGroupOffsets: %+v", ps)
	}

	alter := kmsg.NewPtrAlterShareGroupOffsetsRequest()
	alter.GroupID = "sg"
	alter.Topics = []kmsg.AlterShareGroupOffsetsRequestTopic{{Topic: "t", Partitions: []kmsg.AlterShareGroupOffsetsRequestTopicPartition{{Partition: 0, StartOffset: 0}}}}
	if ar := call[*kmsg.AlterShareGroupOffsetsResponse](h, alter); ar.ErrorCode != kerr.NonEmptyGroup.Code {
		t.Fatalf("altering a group with members: %+v", ar)
	}
	if hb := shareHeartbeat(h, "m1", -1); hb.ErrorCode != 0 || hb.MemberEpoch != -1 {
		t.Fatalf("leave: %+v", hb)
	}
	if ar := call[*kmsg.AlterShareGroupOffsetsResponse](h, alter); ar.ErrorCode != 0 || ar.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("AlterShareGroupOffsets: %+v", ar)
	}
	ps = call[*kmsg.DescribeShareGroupOffsetsResponse](h, dso).Groups[0].Topics[0].Partitions
	if ps[0].StartOffset != 0 || ps[0].Lag != 2 {
		t.Fatalf("after the alter: %+v", ps)
	}
	del := kmsg.NewPtrDeleteShareGroupOffsetsRequest()
	del.GroupID = "sg"
	del.Topics = []kmsg.DeleteShareGroupOffsetsRequestTopic{{Topic: "t"}}
	if dr := call[*kmsg.DeleteShareGroupOffsetsResponse](h, del); dr.ErrorCode != 0 || dr.Topics[0].ErrorCode != 0 {
		t.Fatalf("DeleteShareGroupOffsets: %+v", dr)
	}
	if ps = call[*kmsg.DescribeShareGroupOffsetsResponse](h, dso).Groups[0].Topics[0].Partitions; ps[0].StartOffset != -1 {
		t.Fatalf("after the delete: %+v", ps)
	}

	// DeleteGroups: refused while the group has a member, then done.
	shareHeartbeat(h, "m2", 0, "t")
	call[*kmsg.ShareFetchResponse](h, shareFetchReq("m2", id, 0, 0))
	dg := kmsg.NewPtrDeleteGroupsRequest()
	dg.SetVersion(2)
	dg.Groups = []string{"sg"}
	if r := call[*kmsg.DeleteGroupsResponse](h, dg); r.Groups[0].ErrorCode != kerr.NonEmptyGroup.Code {
		t.Fatalf("deleting a group with a member: %+v", r.Groups)
	}
	shareHeartbeat(h, "m2", -1)
	if r := call[*kmsg.DeleteGroupsResponse](h, dg); r.Groups[0].ErrorCode != 0 {
		t.Fatalf("DeleteGroups: %+v", r.Groups)
	}
	if lr := call[*kmsg.ListGroupsResponse](h, list); len(lr.Groups) != 0 {
		t.Fatalf("a deleted share group is listed: %+v", lr.Groups)
	}
}

// A share fetch that acquires part of a batch carries the whole batch.
func TestShareFetchPartOfABatch(t *testing.T) {
	h := newHarness(t, map[string]string{"share.auto.offset.reset": "earliest"})
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("a", "b", "c", "d", "e")))
	shareHeartbeat(h, "m1", 0, "t")
	req := shareFetchReq("m1", id, 0, 0)
	req.MaxRecords = 2
	resp := call[*kmsg.ShareFetchResponse](h, req)
	if a := acquired(resp); len(a) != 1 || a[0].FirstOffset != 0 || a[0].LastOffset != 1 {
		t.Fatalf("acquired %+v", a)
	}
	if p := resp.Topics[0].Partitions[0]; len(p.Records) != len(batchOf("a", "b", "c", "d", "e")) {
		t.Fatalf("records: %d bytes, want the whole batch", len(p.Records))
	}
}

// TestShareFetchUnknownPartition: a partition index the topic does not
// have is UNKNOWN_TOPIC_OR_PARTITION, a topic id nobody has
// UNKNOWN_TOPIC_ID; the partition the topic has is still served.
func TestShareFetchUnknownPartition(t *testing.T) {
	h := newHarness(t, map[string]string{"share.auto.offset.reset": "earliest"})
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("a")))
	shareHeartbeat(h, "m1", 0, "t")
	req := shareFetchReq("m1", id, 0, 0)
	req.Topics[0].Partitions = append(req.Topics[0].Partitions, req.Topics[0].Partitions[0])
	req.Topics[0].Partitions[1].Partition = 5
	req.Topics = append(req.Topics, kmsg.ShareFetchRequestTopic{TopicID: [16]byte{9}, Partitions: req.Topics[0].Partitions[:1]})
	resp := call[*kmsg.ShareFetchResponse](h, req)
	codes := map[[16]byte]map[int32]int16{}
	var got []kmsg.ShareFetchResponseTopicPartitionAcquiredRecord
	for _, rt := range resp.Topics {
		for _, rp := range rt.Partitions {
			if codes[rt.TopicID] == nil {
				codes[rt.TopicID] = map[int32]int16{}
			}
			codes[rt.TopicID][rp.Partition] = rp.ErrorCode
			if rt.TopicID == id && rp.Partition == 0 {
				got = rp.AcquiredRecords
			}
		}
	}
	want := map[[16]byte]map[int32]int16{
		id:          {0: 0, 5: kerr.UnknownTopicOrPartition.Code},
		[16]byte{9}: {0: kerr.UnknownTopicID.Code},
	}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("codes %v, want %v", codes, want)
	}
	if len(got) != 1 || got[0].LastOffset != 0 {
		t.Fatalf("acquired %+v, want offset 0 of partition 0", got)
	}
}

// share.isolation.level=read_committed: a share group acquires nothing
// past the last stable offset; once the transaction aborts, its records
// and both control batches are archived, never delivered, and the
// records after them are.
func TestShareReadCommitted(t *testing.T) {
	flags := map[string]string{"share.auto.offset.reset": "earliest", "share.isolation.level": "read_committed"}
	for k, v := range rawPartitions {
		flags[k] = v
	}
	h := newHarness(t, flags)
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	h.mustProduce(batchOf("plain"), 0)
	h.mustProduce(idemBatch(5, 0, 0, true, "t1", "t2"), 1) // 1..2, open
	h.mustProduce(batchOf("after"), 3)
	shareHeartbeat(h, "m1", 0, "t")
	if a := acquired(call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 0, 0))); len(a) != 1 || a[0].FirstOffset != 0 || a[0].LastOffset != 0 {
		t.Fatalf("before the abort: %+v, want 0 only (the LSO is 1)", a)
	}
	if code := h.marker(5, 0, false, 0); code != 0 {
		t.Fatalf("abort marker: %v", kerr.ErrorForCode(code))
	}
	// 0 accepted; 1..2 aborted and 4 the marker are archived; 3 acquired.
	resp := call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 1, 0, 0, 0, 1))
	if a := acquired(resp); len(a) != 1 || a[0].FirstOffset != 3 || a[0].LastOffset != 3 {
		t.Fatalf("after the abort: %+v, want 3 only", a)
	}
	sp := h.b.Share().Partition(share.Key{Group: "sg", TopicID: id, Partition: 0})
	if sp.Start != 3 || sp.End() != 5 || sp.Records()[1].State != share.Archived {
		t.Fatalf("window start %d end %d %+v", sp.Start, sp.End(), sp.Records())
	}
}

// FindCoordinator key type 2 (KIP-932) names the leader of the
// __share_group_state partition a share partition's key hashes to, and
// the share coordinator answers a write there and refuses one carrying
// an older leader epoch.
func TestShareCoordinator(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	if c := findShareCoordinator(h, "sg", id); c.ErrorCode != 0 || c.NodeID != h.b.cfg.NodeID {
		t.Fatalf("share coordinator: %+v", c)
	}
	if !shareStateAPIs {
		t.Skip("the rest sends WriteShareGroupState, ReadShareGroupStateSummary and InitializeShareGroupState (85, 87, 83), inter-broker APIs the noquorum build does not serve")
	}
	write := func(leaderEpoch int32, start int64) int16 {
		w := kmsg.NewPtrWriteShareGroupStateRequest()
		w.GroupID = "sg"
		p := kmsg.NewWriteShareGroupStateRequestTopicPartition()
		p.LeaderEpoch, p.StartOffset = leaderEpoch, start
		p.StateBatches = []kmsg.WriteShareGroupStateRequestTopicPartitionStateBatch{{FirstOffset: start, LastOffset: start + 1, DeliveryState: 2, DeliveryCount: 1}}
		w.Topics = []kmsg.WriteShareGroupStateRequestTopic{{TopicID: id, Partitions: []kmsg.WriteShareGroupStateRequestTopicPartition{p}}}
		return call[*kmsg.WriteShareGroupStateResponse](h, w).Topics[0].Partitions[0].ErrorCode
	}
	if code := write(5, 10); code != 0 {
		t.Fatalf("write: %d", code)
	}
	if code := write(4, 20); code != kerr.FencedLeaderEpoch.Code {
		t.Fatalf("a write of an older leader epoch: %d, want FENCED_LEADER_EPOCH", code)
	}
	summary := func() kmsg.ReadShareGroupStateSummaryResponseTopicPartition {
		sum := kmsg.NewPtrReadShareGroupStateSummaryRequest()
		sum.SetVersion(1)
		sum.GroupID = "sg"
		sum.Topics = []kmsg.ReadShareGroupStateSummaryRequestTopic{{TopicID: id, Partitions: []kmsg.ReadShareGroupStateSummaryRequestTopicPartition{{Partition: 0}}}}
		return call[*kmsg.ReadShareGroupStateSummaryResponse](h, sum).Topics[0].Partitions[0]
	}
	if s := summary(); s.StartOffset != 10 || s.StateEpoch != 0 || s.LeaderEpoch != 5 || s.DeliveryCompleteCount != 2 {
		t.Fatalf("summary: %+v", s)
	}
	// An admin's reset (InitializeShareGroupState) takes the next state
	// epoch: a leader still writing with the old one is fenced.
	ini := kmsg.NewPtrInitializeShareGroupStateRequest()
	ini.GroupID = "sg"
	ini.Topics = []kmsg.InitializeShareGroupStateRequestTopic{{TopicID: id, Partitions: []kmsg.InitializeShareGroupStateRequestTopicPartition{{StartOffset: 30}}}}
	if code := call[*kmsg.InitializeShareGroupStateResponse](h, ini).Topics[0].Partitions[0].ErrorCode; code != 0 {
		t.Fatalf("initialize: %d", code)
	}
	if code := write(5, 31); code != kerr.FencedStateEpoch.Code {
		t.Fatalf("a write of the state epoch before the reset: %d, want FENCED_STATE_EPOCH", code)
	}
	if s := summary(); s.StartOffset != 30 || s.StateEpoch != 1 || s.LeaderEpoch != 5 || s.DeliveryCompleteCount != 0 {
		t.Fatalf("summary after the reset: %+v", s)
	}
	// A new leader's read (KIP-932: with its leader epoch) fences the
	// leader before it; a read by an older leader is refused.
	read := func(leaderEpoch int32) int16 {
		rd := kmsg.NewPtrReadShareGroupStateRequest()
		rd.GroupID = "sg"
		rd.Topics = []kmsg.ReadShareGroupStateRequestTopic{{TopicID: id, Partitions: []kmsg.ReadShareGroupStateRequestTopicPartition{{LeaderEpoch: leaderEpoch}}}}
		return call[*kmsg.ReadShareGroupStateResponse](h, rd).Topics[0].Partitions[0].ErrorCode
	}
	if code := read(4); code != kerr.FencedLeaderEpoch.Code {
		t.Fatalf("a read of an older leader epoch: %d, want FENCED_LEADER_EPOCH", code)
	}
	if code := read(6); code != 0 {
		t.Fatalf("a new leader's read: %d", code)
	}
	if code := write(5, 31); code != kerr.FencedLeaderEpoch.Code {
		t.Fatalf("the old leader's write after the new leader's read: %d, want FENCED_LEADER_EPOCH", code)
	}
	if s := summary(); s.LeaderEpoch != 6 {
		t.Fatalf("summary after the new leader's read: %+v", s)
	}
}

// findShareCoordinator asks for the coordinator of partition 0 of topic
// id in share group g (FindCoordinator v4, key type 2), which creates
// __share_group_state.
func findShareCoordinator(h *harness, g string, id [16]byte) kmsg.FindCoordinatorResponseCoordinator {
	fc := kmsg.NewPtrFindCoordinatorRequest()
	fc.SetVersion(4)
	fc.CoordinatorType, fc.CoordinatorKeys = 2, []string{share.Key{Group: g, TopicID: id}.CoordinatorKey()}
	return call[*kmsg.FindCoordinatorResponse](h, fc).Coordinators[0]
}

// TestShareCoordinatorOffline: on a single broker whose
// __share_group_state partition went offline (a write to it failed),
// the share coordinator answers NOT_COORDINATOR, as the group and
// transaction coordinators do (TestCoordinatorWriteFails): it no longer
// serves the partition.
func TestShareCoordinatorOffline(t *testing.T) {
	if !shareStateAPIs {
		t.Skip("sends WriteShareGroupState (85), an inter-broker API the noquorum build does not serve")
	}
	h := newHarness(t, nil)
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	must(t, "find the share coordinator", findShareCoordinator(h, "sg", id).ErrorCode)
	write := func() int16 {
		w := kmsg.NewPtrWriteShareGroupStateRequest()
		w.GroupID = "sg"
		p := kmsg.NewWriteShareGroupStateRequestTopicPartition()
		p.StartOffset = 0
		w.Topics = []kmsg.WriteShareGroupStateRequestTopic{{TopicID: id, Partitions: []kmsg.WriteShareGroupStateRequestTopicPartition{p}}}
		return call[*kmsg.WriteShareGroupStateResponse](h, w).Topics[0].Partitions[0].ErrorCode
	}
	must(t, "first write", write())
	h.arm("write", "__share_group_state-", "err=EIO")
	if code := write(); code == 0 {
		t.Fatal("a write that failed on disk was answered without an error")
	}
	if code := write(); code != kerr.NotCoordinator.Code {
		t.Fatalf("a write to the offline partition: %v, want NOT_COORDINATOR", kerr.ErrorForCode(code))
	}
}

// A share partition's leader that forgot the state (its leadership moved
// away and back) reads it from the share coordinator when it next serves
// the partition: an accepted record is not delivered again, an acquired
// one is available again with its delivery count, and the acquiring
// member's acknowledgement of it is refused.
func TestShareLeaderReadsState(t *testing.T) {
	h := newHarness(t, map[string]string{"share.auto.offset.reset": "earliest"})
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("a", "b", "c")))
	shareHeartbeat(h, "m1", 0, "t")
	if a := acquired(call[*kmsg.ShareFetchResponse](h, shareFetchReq("m1", id, 0, 0))); len(a) != 1 || a[0].LastOffset != 2 {
		t.Fatalf("first fetch: %+v", a)
	}
	ack := kmsg.NewPtrShareAcknowledgeRequest()
	ack.SetVersion(1)
	ack.GroupID, ack.MemberID, ack.ShareSessionEpoch = kmsg.StringPtr("sg"), kmsg.StringPtr("m1"), 1
	ack.Topics = []kmsg.ShareAcknowledgeRequestTopic{{TopicID: id, Partitions: []kmsg.ShareAcknowledgeRequestTopicPartition{{
		Partition: 0, AcknowledgementBatches: []kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch{{FirstOffset: 0, LastOffset: 0, AcknowledgeTypes: []int8{1}}}}}}}
	if r := call[*kmsg.ShareAcknowledgeResponse](h, ack); r.ErrorCode != 0 || r.Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("accept 0: %+v", r)
	}

	h.b.share.Unload(id, 0)
	ack.ShareSessionEpoch = 2
	ack.Topics[0].Partitions[0].AcknowledgementBatches[0].FirstOffset, ack.Topics[0].Partitions[0].AcknowledgementBatches[0].LastOffset = 1, 1
	if r := call[*kmsg.ShareAcknowledgeResponse](h, ack); r.Topics[0].Partitions[0].ErrorCode != kerr.InvalidRecordState.Code {
		t.Fatalf("accepting a record acquired before the move: %+v, want INVALID_RECORD_STATE", r.Topics[0].Partitions[0])
	}
	shareHeartbeat(h, "m2", 0, "t")
	a := acquired(call[*kmsg.ShareFetchResponse](h, shareFetchReq("m2", id, 0, 0)))
	if len(a) != 1 || a[0].FirstOffset != 1 || a[0].LastOffset != 2 || a[0].DeliveryCount != 2 {
		t.Fatalf("after the move: %+v, want 1..2 delivered a second time", a)
	}
}

// TestShareRenew: ShareFetch and ShareAcknowledge v2 (KIP-1222). A renew
// acknowledgement keeps a record the member's past its first lock; a
// renewing ShareFetch fetches nothing and must ask for nothing; type 4
// without IsRenewAck, and an unknown ShareAcquireMode, are refused.
func TestShareRenew(t *testing.T) {
	h := newHarness(t, map[string]string{"share.auto.offset.reset": "earliest"})
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("a", "b")))
	if hb := shareHeartbeat(h, "m1", 0, "t"); hb.ErrorCode != 0 {
		t.Fatalf("join: %+v", hb)
	}
	v2 := func(req *kmsg.ShareFetchRequest) *kmsg.ShareFetchRequest { req.SetVersion(2); return req }
	r := call[*kmsg.ShareFetchResponse](h, v2(shareFetchReq("m1", id, 0, 0)))
	if a := acquired(r); len(a) != 1 || a[0].LastOffset != 1 || r.AcquisitionLockTimeoutMillis != 30000 {
		t.Fatalf("fetch: %+v", r)
	}

	// Type 4 without IsRenewAck is a bad acknowledgement.
	r = call[*kmsg.ShareFetchResponse](h, v2(shareFetchReq("m1", id, 1, 0, 0, 0, int64(share.AckRenew))))
	if code := r.Topics[0].Partitions[0].AcknowledgeErrorCode; code != kerr.InvalidRequest.Code {
		t.Fatalf("renew without IsRenewAck: %v", kerr.ErrorForCode(code))
	}
	// A renewal that also asks for records is refused as a whole.
	bad := v2(shareFetchReq("m1", id, 2, 0, 0, 0, int64(share.AckRenew)))
	bad.IsRenewAck = true
	if r = call[*kmsg.ShareFetchResponse](h, bad); r.ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("renewal with fetch limits: %+v", r)
	}
	mode := v2(shareFetchReq("m1", id, 2, 0))
	mode.ShareAcquireMode = 7
	if r = call[*kmsg.ShareFetchResponse](h, mode); r.ErrorCode != kerr.InvalidRequest.Code {
		t.Fatalf("acquire mode 7: %+v", r)
	}

	// 20 s in, m1 renews offset 0 through ShareFetch and offset 1 through
	// ShareAcknowledge; both stay its own past the first lock's 30 s.
	h.now += 20_000
	h.b.Tick(h.now)
	renew := v2(shareFetchReq("m1", id, 2, 0, 0, 0, int64(share.AckRenew)))
	renew.IsRenewAck, renew.MaxBytes, renew.MaxRecords = true, 0, 0
	r = call[*kmsg.ShareFetchResponse](h, renew)
	if r.ErrorCode != 0 || r.Topics[0].Partitions[0].AcknowledgeErrorCode != 0 || len(acquired(r)) != 0 {
		t.Fatalf("renew through ShareFetch: %+v", r)
	}
	noNullRecords(t, r)
	ack := kmsg.NewPtrShareAcknowledgeRequest()
	ack.SetVersion(2)
	ack.GroupID, ack.MemberID, ack.ShareSessionEpoch, ack.IsRenewAck = kmsg.StringPtr("sg"), kmsg.StringPtr("m1"), 3, true
	ack.Topics = []kmsg.ShareAcknowledgeRequestTopic{{TopicID: id, Partitions: []kmsg.ShareAcknowledgeRequestTopicPartition{{
		Partition: 0, AcknowledgementBatches: []kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch{{FirstOffset: 1, LastOffset: 1, AcknowledgeTypes: []int8{share.AckRenew}}}}}}}
	if a := call[*kmsg.ShareAcknowledgeResponse](h, ack); a.ErrorCode != 0 || a.Topics[0].Partitions[0].ErrorCode != 0 || a.AcquisitionLockTimeoutMillis != 30000 {
		t.Fatalf("renew through ShareAcknowledge: %+v", a)
	}
	h.now += 15_000 // 35 s after the fetch: the first locks would have ended
	h.b.Tick(h.now)
	recs := h.b.share.Partition(share.Key{Group: "sg", TopicID: id, Partition: 0}).Records()
	if len(recs) != 2 || recs[0].State != share.Acquired || recs[1].State != share.Acquired || recs[0].Owner != "m1" {
		t.Fatalf("after 35 s the renewed records are %+v, want both still m1's", recs)
	}
	h.now += 20_000 // past the renewed locks
	h.b.Tick(h.now)
	if recs = h.b.share.Partition(share.Key{Group: "sg", TopicID: id, Partition: 0}).Records(); recs[0].State != share.Available {
		t.Fatalf("after the renewed lock: %+v, want available again", recs)
	}
}

// TestShareFetchMaxBytes: MaxBytes bounds what a ShareFetch acquires
// (a soft limit, KIP-74): with MaxBytes 1, each fetch acquires one
// batch, the first whatever its size.
func TestShareFetchMaxBytes(t *testing.T) {
	h := newHarness(t, map[string]string{"share.auto.offset.reset": "earliest"})
	h.createTopic("t", 1, nil)
	id := h.b.topics["t"].ID
	for _, v := range []string{"a", "b", "c"} {
		call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf(v)))
	}
	if hb := shareHeartbeat(h, "m1", 0, "t"); hb.ErrorCode != 0 {
		t.Fatalf("join: %+v", hb)
	}
	for i, epoch := range []int32{0, 1, 2} {
		req := shareFetchReq("m1", id, epoch, 0)
		req.MaxBytes = 1
		a := acquired(call[*kmsg.ShareFetchResponse](h, req))
		if len(a) != 1 || a[0].FirstOffset != int64(i) || a[0].LastOffset != int64(i) {
			t.Fatalf("fetch %d with MaxBytes 1 acquired %+v, want offset %d alone", i, a, i)
		}
	}
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf("d")))
	req := shareFetchReq("m1", id, 3, 0)
	req.MaxBytes = 0
	if a := acquired(call[*kmsg.ShareFetchResponse](h, req)); len(a) != 0 {
		t.Fatalf("MaxBytes 0 acquired %+v, want nothing", a)
	}
	// A batch that does not fit after one that does waits for the next
	// fetch, and is not in this answer's records either.
	call[*kmsg.ProduceResponse](h, produceReq("t", 0, 1, batchOf(strings.Repeat("x", 10_000))))
	req = shareFetchReq("m1", id, 4, 0)
	req.MaxBytes = 5_000
	resp := call[*kmsg.ShareFetchResponse](h, req)
	if a := acquired(resp); len(a) != 1 || a[0].FirstOffset != 3 || a[0].LastOffset != 3 || len(resp.Topics[0].Partitions[0].Records) > 5_000 {
		t.Fatalf("MaxBytes 5000 before a 10 KB batch: acquired %+v, %d bytes of records; want offset 3 alone", a, len(resp.Topics[0].Partitions[0].Records))
	}
}
