package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/coordinator"
	"github.com/gregor-kafka/gregor/core/share"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The share-group offset admin APIs (KIP-932): DescribeShareGroupOffsets
// v0-1 gives each share partition's start offset (-1 where the group
// never read) and, from v1, its lag: the records from the start offset to
// the high watermark not yet acknowledged or archived.
// AlterShareGroupOffsets v0 moves start offsets, and
// DeleteShareGroupOffsets v0 forgets a group's topics; both need a group
// without members (NON_EMPTY_GROUP), as a consumer group's offset reset
// does.
func handleShareOffsets(b *Broker, r *Request) kmsg.Response {
	defer b.groups.StoreShare(b.coordinatesGroup) // DeleteShareGroupOffsets forgets partitions
	switch req := r.Msg.(type) {
	case *kmsg.DescribeShareGroupOffsetsRequest:
		return b.describeShareOffsets(r, req)
	case *kmsg.AlterShareGroupOffsetsRequest:
		return b.alterShareOffsets(r, req)
	case *kmsg.DeleteShareGroupOffsetsRequest:
		return b.deleteShareOffsets(r, req)
	}
	return wire.ErrorResponse(r.Msg, kerr.InvalidRequest.Code)
}

// shareGroups lists the share groups: those of the engine and those
// whose state this broker's share coordinator keeps, in id order.
func (b *Broker) shareGroups() []string {
	ids := b.share.Groups()
	for _, k := range b.shares.Initialized() {
		if !slices.Contains(ids, k.Group) {
			ids = append(ids, k.Group)
		}
	}
	slices.Sort(ids)
	return ids
}

// shareKeys lists a group's share partitions known here: assigned in
// the group, led here, or kept by this broker's share coordinator. The
// group coordinator's record of the assigned ones is in memory: after it
// moves, an empty group's share partitions kept elsewhere are not listed
// (Kafka persists it in __consumer_offsets).
func (b *Broker) shareKeys(group string) []share.Key {
	set := map[share.Key]bool{}
	for _, k := range b.share.Partitions(group) {
		set[k] = true
	}
	for _, k := range b.shares.Initialized() {
		if k.Group == group {
			set[k] = true
		}
	}
	if g := b.share.Group(group); g != nil {
		//purity:unordered fills a set; sorted below
		for tp := range g.Assigned {
			set[share.Key{Group: group, TopicID: tp.TopicID, Partition: tp.Partition}] = true
		}
	}
	ks := make([]share.Key, 0, len(set))
	for k := range set {
		ks = append(ks, k)
	}
	share.SortKeys(ks)
	return ks
}

// shareGather hands one ShareOp of api per key to the keys'
// coordinators (init gives a ShareInit its state) and calls done with the
// answers, in key order, once all are in.
func (b *Broker) shareGather(api int16, keys []share.Key, init func(share.Key) *share.Partition, done func([]coordinator.ShareAnswer)) {
	out := make([]coordinator.ShareAnswer, len(keys))
	open := len(keys) + 1
	finish := func() {
		if open--; open == 0 {
			done(out)
		}
	}
	for i, k := range keys {
		op := coordinator.ShareOp{API: api, Key: k}
		if init != nil {
			op.State = init(k)
		}
		b.shareCoordinate(op, func(a coordinator.ShareAnswer) { out[i] = a; finish() })
	}
	finish()
}

// describeShareOffsets answers from the share coordinators' summaries
// (ReadShareGroupStateSummary), once all are in.
func (b *Broker) describeShareOffsets(r *Request, req *kmsg.DescribeShareGroupOffsetsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DescribeShareGroupOffsetsResponse)
	var keys []share.Key
	var slots []*kmsg.DescribeShareGroupOffsetsResponseGroupTopicPartition
	for _, rg := range req.Groups {
		g := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
		g.GroupID = rg.GroupID
		if !b.coordinatesGroup(rg.GroupID) {
			g.ErrorCode = kerr.NotCoordinator.Code
			resp.Groups = append(resp.Groups, g)
			continue
		}
		type want struct {
			topic string
			parts []int32
		}
		var wants []want
		if rg.Topics == nil { // v1: every topic the group has state for
			seen := map[string]int{}
			for _, k := range b.shareKeys(rg.GroupID) {
				name, _, ok := coordinatorHost{b}.TopicByID(k.TopicID)
				if !ok {
					continue
				}
				i, ok := seen[name]
				if !ok {
					i = len(wants)
					seen[name] = i
					wants = append(wants, want{topic: name})
				}
				wants[i].parts = append(wants[i].parts, k.Partition)
			}
		}
		for _, t := range rg.Topics {
			wants = append(wants, want{t.Topic, t.Partitions})
		}
		for _, w := range wants {
			t := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
			t.Topic = w.topic
			id, _, ok := coordinatorHost{b}.Topic(w.topic)
			t.TopicID = id
			for _, idx := range w.parts {
				rp := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
				rp.Partition, rp.StartOffset, rp.LeaderEpoch, rp.Lag = idx, -1, -1, -1
				if !ok {
					rp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				}
				t.Partitions = append(t.Partitions, rp)
			}
			g.Topics = append(g.Topics, t)
		}
		resp.Groups = append(resp.Groups, g)
	}
	for gi := range resp.Groups {
		for ti := range resp.Groups[gi].Topics {
			t := &resp.Groups[gi].Topics[ti]
			for pi := range t.Partitions {
				if t.Partitions[pi].ErrorCode == 0 {
					keys = append(keys, share.Key{Group: resp.Groups[gi].GroupID, TopicID: t.TopicID, Partition: t.Partitions[pi].Partition})
					slots = append(slots, &t.Partitions[pi])
				}
			}
		}
	}
	req2 := *r
	b.shareGather(coordinator.ShareSummary, keys, nil, func(out []coordinator.ShareAnswer) {
		for i, a := range out {
			rp := slots[i]
			if rp.ErrorCode = a.Code; a.Code != 0 || a.State.Start < 0 {
				continue // never read, or deleted
			}
			rp.StartOffset, rp.LeaderEpoch = a.State.Start, a.State.LeaderEpoch
			if hw, ok := b.shareHighWatermark(keys[i]); ok {
				rp.Lag = max(hw-a.State.Start-int64(a.Complete), 0)
			}
		}
		b.reply(req2, resp)
	})
	return nil
}

// shareHighWatermark is the high watermark of a share partition's topic
// partition, if this broker knows it.
func (b *Broker) shareHighWatermark(k share.Key) (int64, bool) {
	if p := b.lookup("", k.TopicID).partition(k.Partition); p != nil {
		return p.HighWatermark, true
	}
	return 0, false
}

// shareGroupIdle is the error for altering a share group's offsets: it
// must be coordinated here and have no members.
func (b *Broker) shareGroupIdle(id string) *kerr.Error {
	switch {
	case !b.coordinatesGroup(id):
		return kerr.NotCoordinator
	case b.shareGroupConflict(id):
		return kerr.GroupIDNotFound
	case b.share.Group(id) != nil && b.share.Group(id).State() != "Empty":
		return kerr.NonEmptyGroup
	}
	return nil
}

// alterShareOffsets resets share partitions through their coordinators
// (InitializeShareGroupState with the next state epoch, which fences the
// leaders' cached state).
func (b *Broker) alterShareOffsets(r *Request, req *kmsg.AlterShareGroupOffsetsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.AlterShareGroupOffsetsResponse)
	if err := b.shareGroupIdle(req.GroupID); err != nil {
		resp.ErrorCode = err.Code
		return resp
	}
	var keys []share.Key
	var slots []*int16
	starts := map[share.Key]int64{}
	for _, rt := range req.Topics {
		t := kmsg.NewAlterShareGroupOffsetsResponseTopic()
		t.Topic = rt.Topic
		id, n, ok := coordinatorHost{b}.Topic(rt.Topic)
		t.TopicID = id
		for _, rp := range rt.Partitions {
			p := kmsg.NewAlterShareGroupOffsetsResponseTopicPartition()
			p.Partition = rp.Partition
			if !ok || rp.Partition < 0 || rp.Partition >= n {
				p.ErrorCode = kerr.UnknownTopicOrPartition.Code
			} else {
				k := share.Key{Group: req.GroupID, TopicID: id, Partition: rp.Partition}
				keys, starts[k] = append(keys, k), rp.StartOffset
				b.share.Restore(k, nil)
			}
			t.Partitions = append(t.Partitions, p)
		}
		resp.Topics = append(resp.Topics, t)
	}
	for i := range resp.Topics {
		for j := range resp.Topics[i].Partitions {
			if p := &resp.Topics[i].Partitions[j]; p.ErrorCode == 0 {
				slots = append(slots, &p.ErrorCode)
			}
		}
	}
	req2 := *r
	b.shareGather(coordinator.ShareInit, keys, func(k share.Key) *share.Partition { return share.NewPartition(starts[k]) }, func(out []coordinator.ShareAnswer) {
		for i, a := range out {
			*slots[i] = a.Code
		}
		b.reply(req2, resp)
	})
	return nil
}

// deleteShareOffsets forgets a group's topics through the coordinators
// of their partitions (DeleteShareGroupState).
func (b *Broker) deleteShareOffsets(r *Request, req *kmsg.DeleteShareGroupOffsetsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DeleteShareGroupOffsetsResponse)
	if err := b.shareGroupIdle(req.GroupID); err != nil {
		resp.ErrorCode = err.Code
		return resp
	}
	var keys []share.Key
	var slots []*int16
	for _, rt := range req.Topics {
		t := kmsg.NewDeleteShareGroupOffsetsResponseTopic()
		t.Topic = rt.Topic
		id, n, ok := coordinatorHost{b}.Topic(rt.Topic)
		t.TopicID = id
		if !ok {
			t.ErrorCode = kerr.UnknownTopicOrPartition.Code
		}
		resp.Topics = append(resp.Topics, t)
		for idx := int32(0); ok && idx < n; idx++ {
			k := share.Key{Group: req.GroupID, TopicID: id, Partition: idx}
			keys = append(keys, k)
			b.share.Restore(k, nil)
			if g := b.share.Group(req.GroupID); g != nil {
				delete(g.Assigned, share.TP{TopicID: id, Partition: idx})
			}
		}
	}
	for i := range resp.Topics {
		slots = append(slots, &resp.Topics[i].ErrorCode)
	}
	req2 := *r
	b.shareGather(coordinator.ShareDelete, keys, nil, func(out []coordinator.ShareAnswer) {
		for i, a := range out {
			if c := a.Code; c != 0 {
				name, _, _ := coordinatorHost{b}.TopicByID(keys[i].TopicID)
				for j := range resp.Topics {
					if resp.Topics[j].Topic == name && *slots[j] == 0 {
						*slots[j] = c
					}
				}
			}
		}
		b.reply(req2, resp)
	})
	return nil
}
