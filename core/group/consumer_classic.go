package group

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// Classic members in a KIP-848 group: KIP-848's upgrade path, Kafka's
// group.consumer.migration.policy=bidirectional as far as the upgrade
// goes. A classic consumer (protocol type "consumer") that joins a
// consumer group is served by the consumer group's coordinator through
// JoinGroup, SyncGroup, Heartbeat and LeaveGroup:
//
//   - JoinGroup takes its subscription and owned partitions from the
//     metadata of its first protocol, runs the server assignor when the
//     subscription changed (a new group epoch), reconciles the member
//     like a heartbeat would, and answers at once: generation = member
//     epoch, the member's first protocol, no leader (the server assigns);
//   - SyncGroup answers the partitions the member now holds, encoded as
//     that protocol's ConsumerProtocolAssignment;
//   - Heartbeat answers REBALANCE_IN_PROGRESS while the member is behind
//     its target (partitions to revoke or to receive, or a newer
//     assignment epoch), so that it rejoins; its next JoinGroup reports
//     what it revoked;
//   - a classic group whose members are all "consumer" protocol members,
//     Stable or Empty, becomes a consumer group when a KIP-848 member
//     heartbeats to it (convertClassic): each member keeps its generation
//     as epoch and its assignment as current and target assignment.
//
//   - when the last KIP-848 member leaves a group whose other members
//     are all classic ones (whose protocols are known), the group becomes
//     a classic group again (downgradeToClassic): generation = the group
//     epoch, each member's metadata and current assignment kept, and a
//     rebalance begins, which the members join through their next
//     Heartbeat (REBALANCE_IN_PROGRESS or ILLEGAL_GENERATION).
//
// A classic member's protocols and session timeout are kept in its record
// 5 (ClassicMemberMetadata, consumer_records.go), so all of this goes on
// after a restart.

// classicInfo is what a classic member of a consumer group sent last.
type classicInfo struct {
	protocols      []kmsg.JoinGroupRequestProtocol
	sessionTimeout int32
}

// classicJoinConsumer is JoinGroup for a group of type consumer.
func (c *Coordinator) classicJoinConsumer(call Call, g *Group, req *kmsg.JoinGroupRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
	fail := func(e *kerr.Error) kmsg.Response {
		resp.ErrorCode, resp.Generation, resp.Protocol = e.Code, -1, new(string)
		return resp
	}
	if req.ProtocolType != "consumer" || len(req.Protocols) == 0 {
		return fail(kerr.InconsistentGroupProtocol)
	}
	sub, err := assign.DecodeSubscription(req.Protocols[0].Name, req.MemberID, "", req.Protocols[0].Metadata)
	if err != nil {
		return fail(kerr.InconsistentGroupProtocol)
	}
	cg := g.cg
	if req.MemberID == "" {
		id := c.newMemberID(call.ClientID)
		if req.Version >= 4 { // KIP-394, as for a classic group
			resp.MemberID = id
			return fail(kerr.MemberIDRequired)
		}
		req.MemberID = id
	}
	m := cg.members[req.MemberID]
	bump := false
	if m == nil {
		if int32(len(cg.members)) >= c.cfg.MaxSize {
			return fail(kerr.GroupMaxSizeReached)
		}
		m = &consumerMember{id: req.MemberID, clientID: call.ClientID, clientHost: call.ClientHost,
			assigned: map[assign.TopicPartition]bool{}, revoking: map[assign.TopicPartition]bool{}}
		if req.InstanceID != nil {
			m.instanceID = *req.InstanceID
		}
		cg.members[m.id] = m
		bump = true
		c.cfg.Logf("group %s: classic consumer %s joined the consumer group", g.id, m.id)
	}
	m.classic = &classicInfo{protocols: req.Protocols, sessionTimeout: req.SessionTimeoutMillis}
	m.rebalanceTimeout = req.RebalanceTimeoutMillis
	m.deadline = c.now + int64(req.SessionTimeoutMillis)
	if topics := slices.Compact(slices.Sorted(slices.Values(sub.Topics))); m.regex != "" || !slices.Equal(topics, m.topics) {
		m.topics, m.regex = topics, ""
		bump = true
	}
	owned := map[assign.TopicPartition]bool{}
	for _, tp := range sub.Owned {
		owned[tp] = true
	}
	c.advanceEpoch(g, call, bump)
	c.reconcile(g, m, owned)
	c.updateConsumerState(g)
	c.storeConsumer(g)
	resp.MemberID, resp.Generation = m.id, m.epoch
	pt, p := "consumer", req.Protocols[0].Name
	resp.ProtocolType, resp.Protocol = &pt, &p
	return resp
}

// classicSyncConsumer is SyncGroup for a group of type consumer.
func (c *Coordinator) classicSyncConsumer(g *Group, req *kmsg.SyncGroupRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
	m, code := c.classicOf(g, req.MemberID, req.Generation)
	if code == 0 && req.ProtocolType != nil && *req.ProtocolType != "consumer" {
		code = kerr.InconsistentGroupProtocol.Code
	}
	if code != 0 {
		resp.ErrorCode = code
		return resp
	}
	m.deadline = c.now + int64(m.classic.sessionTimeout)
	resp.ProtocolType, resp.Protocol = req.ProtocolType, req.Protocol
	resp.MemberAssignment = assign.EncodeAssignment(sortedSet(m.assigned))
	return resp
}

// classicHeartbeatConsumer is Heartbeat for a group of type consumer.
func (c *Coordinator) classicHeartbeatConsumer(g *Group, req *kmsg.HeartbeatRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
	m, code := c.classicOf(g, req.MemberID, req.Generation)
	if code == 0 {
		m.deadline = c.now + int64(m.classic.sessionTimeout)
		if m.epoch != g.cg.assignmentEpoch || len(m.revoking) > 0 || len(m.assigned) != len(g.cg.target[m.id]) {
			code = kerr.RebalanceInProgress.Code
		}
	}
	resp.ErrorCode = code
	return resp
}

// classicOf finds the classic member a SyncGroup or Heartbeat names, at
// its epoch. A member whose record held no ClassicMemberMetadata is
// classic from now on, with the group's consumer.session.timeout.ms.
func (c *Coordinator) classicOf(g *Group, memberID string, generation int32) (*consumerMember, int16) {
	m := g.cg.members[memberID]
	switch {
	case m == nil:
		return nil, kerr.UnknownMemberID.Code
	case generation != m.epoch:
		return nil, kerr.IllegalGeneration.Code
	}
	if m.classic == nil {
		session, _ := c.consumerTimeouts(g.id)
		m.classic = &classicInfo{sessionTimeout: session}
	}
	return m, 0
}

// classicLeaveConsumer is LeaveGroup's one member of a consumer group.
func (c *Coordinator) classicLeaveConsumer(g *Group, lm kmsg.LeaveGroupRequestMember) int16 {
	m := g.cg.members[lm.MemberID]
	if lm.InstanceID != nil {
		for _, id := range sortedKeys(g.cg.members) { // id order: of two sharing it, the last goes
			if o := g.cg.members[id]; o.instanceID == *lm.InstanceID {
				m = o
			}
		}
	}
	if m == nil {
		return kerr.UnknownMemberID.Code
	}
	c.removeConsumer(g, m, "left the group")
	c.storeConsumer(g)
	return 0
}

// convertClassic turns a classic group of consumer-protocol members that
// is Stable or Empty into a consumer group (the upgrade half of
// group.consumer.migration.policy=bidirectional); false when it cannot
// (a rebalance in progress, another protocol type, a metadata or
// assignment that does not decode), and the group stays classic.
func (c *Coordinator) convertClassic(g *Group) bool {
	if g.protocolType != "consumer" || g.state != Stable && g.state != Empty || len(g.pending) > 0 {
		return false
	}
	cg := &consumerGroup{members: map[string]*consumerMember{}, owner: map[assign.TopicPartition]string{}, assignor: "uniform",
		epoch: g.generation, assignmentEpoch: g.generation, target: assign.Assignment{}}
	for _, om := range g.sorted() {
		sub, err := assign.DecodeSubscription(g.protocol, om.id, om.instanceID, om.metadataFor(g.protocol))
		if err != nil {
			return false
		}
		tps, err := assign.DecodeAssignment(om.assignment)
		if err != nil {
			return false
		}
		m := &consumerMember{id: om.id, instanceID: om.instanceID, clientID: om.clientID, clientHost: om.clientHost,
			epoch: g.generation, prevEpoch: g.generation, topics: slices.Compact(slices.Sorted(slices.Values(sub.Topics))),
			rebalanceTimeout: om.rebalanceTimeout, deadline: om.deadline,
			assigned: map[assign.TopicPartition]bool{}, revoking: map[assign.TopicPartition]bool{},
			classic: &classicInfo{protocols: om.protocols, sessionTimeout: om.sessionTimeout}}
		for _, tp := range tps {
			m.assigned[tp], cg.owner[tp] = true, m.id
		}
		cg.target[m.id] = assign.SortPartitions(tps)
		cg.members[m.id] = m
	}
	cg.topicsSig = c.topicsSig(cg)
	// The classic group's records are kept (the offsets) and its metadata
	// is deleted, as Kafka's conversion writes a tombstone for it.
	if err := c.write(g, []kv{{EncodeGroupKey(g.id), nil}}); err != nil {
		return false
	}
	offsets := g.offsets
	*g = *newGroup(g.id, g.partition, c.now).withOffsets(offsets)
	g.typ, g.cg = Consumer, cg
	c.cfg.Logf("group %s: classic group converted to a consumer group at epoch %d", g.id, cg.epoch)
	return true
}

// maybeDowngrade turns the group back into a classic group when it has
// members and every one of them is a classic member whose protocols are
// known. The consumer group's records get tombstones and the classic
// group's metadata is written in the same batch; if that write fails the
// group stays a consumer group.
func (c *Coordinator) maybeDowngrade(g *Group) {
	cg := g.cg
	if cg == nil || len(cg.members) == 0 {
		return
	}
	//purity:unordered an all-members check; order cannot matter
	for _, m := range cg.members {
		if m.classic == nil || len(m.classic.protocols) == 0 {
			return
		}
	}
	ng := newGroup(g.id, g.partition, c.now).withOffsets(g.offsets)
	ng.protocolType, ng.generation = "consumer", cg.epoch
	for _, id := range sortedKeys(cg.members) {
		m := cg.members[id]
		ng.seq++
		ng.members[id] = &member{id: id, instanceID: m.instanceID, clientID: m.clientID, clientHost: m.clientHost, seq: ng.seq,
			sessionTimeout: m.classic.sessionTimeout, rebalanceTimeout: m.rebalanceTimeout, protocols: m.classic.protocols,
			assignment: assign.EncodeAssignment(sortedSet(m.assigned)), deadline: c.now + int64(m.classic.sessionTimeout)}
		if m.instanceID != "" {
			ng.static[m.instanceID] = id
		}
		if ng.leader == "" {
			ng.leader = id
		}
	}
	ng.protocol = ng.selectProtocol()
	if ng.protocol == "" {
		return // no protocol every member supports
	}
	ng.setState(Stable, c.now)
	recs := append(consumerTombstones(g), kv{EncodeGroupKey(g.id), EncodeGroupValue(c.metadataValue(ng))})
	if c.write(g, recs) != nil {
		return
	}
	*g = *ng
	c.cfg.Logf("group %s: the last consumer-protocol member left: a classic group again at generation %d", g.id, g.generation)
	c.prepareRebalance(g, "downgraded from a consumer group")
}
