package group

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// OffsetCommit v0-9. A member commits under its generation (classic) or
// member epoch (KIP-848, v9); a consumer outside any group manager
// commits with generation -1 and no member id, which only an empty group
// accepts. The commit is one batch of offset records in the group's
// __consumer_offsets partition; the offsets count once it is appended.
func (c *Coordinator) offsetCommit(req *kmsg.OffsetCommitRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.OffsetCommitResponse)
	code := c.commitAllowed(req)
	g := c.groups[req.Group]
	var recs []kv
	var keep []func()
	for _, rt := range req.Topics {
		st := kmsg.NewOffsetCommitResponseTopic()
		st.Topic = rt.Topic
		_, parts, known := c.cfg.Topics.Topic(rt.Topic)
		for _, rp := range rt.Partitions {
			sp := kmsg.NewOffsetCommitResponseTopicPartition()
			sp.Partition = rp.Partition
			meta, errCode := c.checkCommit(code, known && rp.Partition >= 0 && rp.Partition < parts, rp.Metadata)
			if errCode != 0 {
				sp.ErrorCode = errCode
			} else {
				ts := c.now
				if req.Version == 1 && rp.Timestamp >= 0 {
					ts = rp.Timestamp
				}
				o := offset{rp.Offset, rp.LeaderEpoch, meta, ts}
				if req.Version < 6 {
					o.leaderEpoch = -1
				}
				tp := topicPartition{rt.Topic, rp.Partition}
				recs = append(recs, kv{EncodeOffsetKey(g.id, tp.topic, tp.partition), EncodeOffsetValue(o.offset, o.leaderEpoch, o.metadata, o.commitTime)})
				keep = append(keep, func() { g.offsets[tp] = o })
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if len(recs) == 0 {
		return resp
	}
	if err := c.write(g, recs); err != nil {
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				if sp := &resp.Topics[i].Partitions[j]; sp.ErrorCode == 0 {
					sp.ErrorCode = writeFailed()
				}
			}
		}
		return resp
	}
	for _, f := range keep {
		f()
	}
	return resp
}

// checkCommit validates one partition of an offset commit, transactional
// or not: the committer's check (code), a partition that exists, and
// metadata within offset.metadata.max.bytes.
func (c *Coordinator) checkCommit(code int16, partitionExists bool, metadata *string) (string, int16) {
	meta := ""
	if metadata != nil {
		meta = *metadata
	}
	switch {
	case code != 0:
		return meta, code
	case !partitionExists:
		return meta, kerr.UnknownTopicOrPartition.Code
	case len(meta) > c.cfg.MaxMetadataBytes:
		return meta, kerr.OffsetMetadataTooLarge.Code
	}
	return meta, 0
}

// commitAllowed checks who commits (Kafka's validateOffsetCommit), and
// creates the group for a simple commit to a group that does not exist.
func (c *Coordinator) commitAllowed(req *kmsg.OffsetCommitRequest) int16 {
	g := c.groups[req.Group]
	simple := req.Generation < 0 && req.MemberID == "" && req.InstanceID == nil
	if g == nil {
		if req.Generation >= 0 {
			return kerr.IllegalGeneration.Code
		}
		g = c.group(req.Group, true)
	}
	if g.typ == Consumer {
		return c.consumerCommitAllowed(g, req.MemberID, req.Generation, simple, req.Version)
	}
	if simple && g.state == Empty {
		return 0
	}
	m, code := c.classicMember(g, g.id, req.MemberID, req.InstanceID)
	switch {
	case code != 0:
		return code
	case req.Generation != g.generation:
		return kerr.IllegalGeneration.Code
	case g.state == CompletingRebalance:
		return kerr.RebalanceInProgress.Code
	}
	if m.join == nil && m.sync == nil {
		m.deadline = c.now + int64(m.sessionTimeout)
	}
	return 0
}

type fetchedPartition struct {
	partition   int32
	offset      int64
	leaderEpoch int32
	metadata    string
	code        int16
}

type fetchedTopic struct {
	topic string
	parts []fetchedPartition
}

// OffsetFetch v0-9; v8+ asks for several groups at once, v9 names the
// KIP-848 member asking. A partition with no committed offset gets -1.
// With RequireStable (KIP-447) a partition whose offset an open
// transaction holds answers UNSTABLE_OFFSET_COMMIT.
func (c *Coordinator) offsetFetch(req *kmsg.OffsetFetchRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
	if req.Version < 8 {
		asked := map[string][]int32{}
		var order []string
		for _, t := range req.Topics {
			asked[t.Topic] = append(asked[t.Topic], t.Partitions...)
			order = append(order, t.Topic)
		}
		topics, code := c.fetchOffsets(req.Group, req.Topics == nil && req.Version >= 2, order, asked, nil, -1, req.RequireStable)
		resp.ErrorCode = code
		for _, ft := range topics {
			rt := kmsg.NewOffsetFetchResponseTopic()
			rt.Topic = ft.topic
			for _, fp := range ft.parts {
				rp := kmsg.NewOffsetFetchResponseTopicPartition()
				meta := fp.metadata
				rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata, rp.ErrorCode = fp.partition, fp.offset, fp.leaderEpoch, &meta, max(code, fp.code)
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}
	for _, rg := range req.Groups {
		asked := map[string][]int32{}
		var order []string
		for _, t := range rg.Topics {
			asked[t.Topic] = append(asked[t.Topic], t.Partitions...)
			order = append(order, t.Topic)
		}
		topics, code := c.fetchOffsets(rg.Group, rg.Topics == nil, order, asked, rg.MemberID, rg.MemberEpoch, req.RequireStable)
		sg := kmsg.NewOffsetFetchResponseGroup()
		sg.Group, sg.ErrorCode = rg.Group, code
		for _, ft := range topics {
			rt := kmsg.NewOffsetFetchResponseGroupTopic()
			rt.Topic = ft.topic
			for _, fp := range ft.parts {
				rp := kmsg.NewOffsetFetchResponseGroupTopicPartition()
				meta := fp.metadata
				rp.Partition, rp.Offset, rp.LeaderEpoch, rp.Metadata, rp.ErrorCode = fp.partition, fp.offset, fp.leaderEpoch, &meta, fp.code
				rt.Partitions = append(rt.Partitions, rp)
			}
			sg.Topics = append(sg.Topics, rt)
		}
		resp.Groups = append(resp.Groups, sg)
	}
	return resp
}

// fetchOffsets reads one group's offsets: every committed one when all is
// set, else the asked partitions in the asked order.
func (c *Coordinator) fetchOffsets(groupID string, all bool, order []string, asked map[string][]int32, memberID *string, memberEpoch int32, requireStable bool) ([]fetchedTopic, int16) {
	g := c.groups[groupID]
	if g != nil && g.typ == Consumer && memberID != nil && memberEpoch >= 0 {
		if code := c.consumerFetchAllowed(g, *memberID, memberEpoch); code != 0 {
			return nil, code
		}
	}
	lookup := func(tp topicPartition) fetchedPartition {
		fp := fetchedPartition{partition: tp.partition, offset: -1, leaderEpoch: -1}
		if requireStable && c.txnPending(groupID, tp.topic, tp.partition) { // txn.go
			fp.code = kerr.UnstableOffsetCommit.Code
			return fp
		}
		if g != nil {
			if o, ok := g.offsets[tp]; ok {
				fp.offset, fp.leaderEpoch, fp.metadata = o.offset, o.leaderEpoch, o.metadata
			}
		}
		return fp
	}
	var out []fetchedTopic
	if all {
		if g == nil {
			return nil, 0
		}
		tps := g.sortedOffsets()
		for _, tp := range tps {
			if len(out) == 0 || out[len(out)-1].topic != tp.topic {
				out = append(out, fetchedTopic{topic: tp.topic})
			}
			out[len(out)-1].parts = append(out[len(out)-1].parts, lookup(tp))
		}
		return out, 0
	}
	seen := map[string]bool{}
	for _, t := range order {
		if seen[t] {
			continue
		}
		seen[t] = true
		ft := fetchedTopic{topic: t}
		for _, p := range asked[t] {
			ft.parts = append(ft.parts, lookup(topicPartition{t, p}))
		}
		out = append(out, ft)
	}
	return out, 0
}

// OffsetDelete v0 (KIP-496): deletes committed offsets of topics the group
// does not consume; an empty group may lose any of its offsets.
func (c *Coordinator) offsetDelete(req *kmsg.OffsetDeleteRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.OffsetDeleteResponse)
	g := c.groups[req.Group]
	switch {
	case req.Group == "":
		resp.ErrorCode = kerr.InvalidGroupID.Code
		return resp
	case g == nil:
		resp.ErrorCode = kerr.GroupIDNotFound.Code
		return resp
	}
	subscribed, ok := c.subscribedTopics(g)
	if !ok {
		resp.ErrorCode = kerr.NonEmptyGroup.Code
		return resp
	}
	var recs []kv
	var gone []topicPartition
	for _, rt := range req.Topics {
		st := kmsg.NewOffsetDeleteResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewOffsetDeleteResponseTopicPartition()
			sp.Partition = rp.Partition
			tp := topicPartition{rt.Topic, rp.Partition}
			if subscribed[rt.Topic] {
				sp.ErrorCode = kerr.GroupSubscribedToTopic.Code
			} else if _, ok := g.offsets[tp]; ok {
				recs = append(recs, kv{EncodeOffsetKey(g.id, tp.topic, tp.partition), nil})
				gone = append(gone, tp)
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if err := c.write(g, recs); err != nil {
		resp.ErrorCode, resp.Topics = writeFailed(), nil
		return resp
	}
	for _, tp := range gone {
		delete(g.offsets, tp)
	}
	return resp
}

// subscribedTopics lists the topics a non-empty group consumes; ok is false
// for a non-empty classic group whose protocol is not Kafka's consumer
// protocol, whose subscriptions cannot be read.
func (c *Coordinator) subscribedTopics(g *Group) (map[string]bool, bool) {
	out := map[string]bool{}
	if g.typ == Consumer {
		//purity:unordered fills a set
		for _, m := range g.cg.members {
			for _, t := range m.topics {
				out[t] = true
			}
		}
		return out, true
	}
	if len(g.members) == 0 {
		return out, true
	}
	if g.protocolType != "consumer" {
		return nil, false
	}
	//purity:unordered fills a set; any decode error gives (nil, false)
	for _, m := range g.members {
		sub, err := assign.DecodeSubscription(g.protocol, m.id, m.instanceID, m.metadataFor(g.protocol))
		if err != nil {
			return nil, false
		}
		for _, t := range sub.Topics {
			out[t] = true
		}
	}
	return out, true
}

// txnPending reports whether an open transaction holds an offset for the
// group's partition: OffsetFetch with require_stable then answers
// UNSTABLE_OFFSET_COMMIT, and the client asks again later (KIP-447).
func (c *Coordinator) txnPending(groupID, topic string, partition int32) bool {
	//purity:unordered an any-of check; order cannot matter
	for _, byGroup := range c.txn.pending {
		if _, ok := byGroup[groupID][topicPartition{topic, partition}]; ok {
			return true
		}
	}
	return false
}
