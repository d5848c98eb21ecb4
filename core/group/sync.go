package group

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// SyncGroup v0-5. Followers wait (a pending operation) until the leader
// sends the assignment; the leader's SyncGroup stores the group and
// answers everyone. v5 checks the protocol type and name (KIP-559).
func (c *Coordinator) syncGroup(call Call, req *kmsg.SyncGroupRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
	g := c.groups[req.Group]
	if g != nil && g.typ == Consumer && g.cg != nil {
		return c.classicSyncConsumer(g, req)
	}
	m, code := c.classicMember(g, req.Group, req.MemberID, req.InstanceID)
	if code == 0 && req.Generation != g.generation {
		code = kerr.IllegalGeneration.Code
	}
	if code == 0 && (req.ProtocolType != nil && *req.ProtocolType != g.protocolType || req.Protocol != nil && *req.Protocol != g.protocol) {
		code = kerr.InconsistentGroupProtocol.Code
	}
	if code != 0 {
		resp.ErrorCode = code
		return resp
	}
	switch g.state {
	case PreparingRebalance:
		resp.ErrorCode = kerr.RebalanceInProgress.Code
		return resp
	case Stable:
		delete(g.pendingSync, m.id)
		m.deadline = c.now + int64(m.sessionTimeout)
		return c.syncResponse(g, m, req)
	case CompletingRebalance:
	default:
		resp.ErrorCode = kerr.UnknownMemberID.Code
		return resp
	}
	delete(g.pendingSync, m.id)
	if m.sync != nil {
		r := m.sync.req.(*kmsg.SyncGroupRequest).ResponseKind().(*kmsg.SyncGroupResponse)
		r.ErrorCode = kerr.RebalanceInProgress.Code
		m.sync.call.Reply(r)
	}
	m.sync = &waiting{call, req}
	if m.id != g.leader {
		return nil
	}
	given := map[string][]byte{}
	for _, a := range req.GroupAssignment {
		given[a.MemberID] = a.MemberAssignment
	}
	//purity:unordered sets each member's own assignment
	for _, o := range g.members {
		o.assignment = given[o.id]
	}
	if err := c.storeGroup(g); err != nil {
		for _, o := range g.sorted() {
			o.assignment = nil
			if o.sync != nil {
				r := o.sync.req.(*kmsg.SyncGroupRequest).ResponseKind().(*kmsg.SyncGroupResponse)
				r.ErrorCode = writeFailed()
				w := o.sync
				o.sync, o.deadline = nil, c.now+int64(o.sessionTimeout)
				w.call.Reply(r)
			}
		}
		c.prepareRebalance(g, "storing the assignment failed")
		return nil
	}
	g.setState(Stable, c.now)
	c.cfg.Logf("group %s: generation %d is stable", g.id, g.generation)
	for _, o := range g.sorted() {
		if o.sync != nil {
			w := o.sync
			o.sync, o.deadline = nil, c.now+int64(o.sessionTimeout)
			w.call.Reply(c.syncResponse(g, o, w.req.(*kmsg.SyncGroupRequest)))
		}
	}
	return nil
}

func (c *Coordinator) syncResponse(g *Group, m *member, req *kmsg.SyncGroupRequest) *kmsg.SyncGroupResponse {
	resp := req.ResponseKind().(*kmsg.SyncGroupResponse)
	pt, p := g.protocolType, g.protocol
	resp.ProtocolType, resp.Protocol = &pt, &p
	resp.MemberAssignment = m.assignment
	if resp.MemberAssignment == nil {
		resp.MemberAssignment = []byte{}
	}
	return resp
}

// classicMember finds the member a Sync, Heartbeat or OffsetCommit names,
// checking its group.instance.id (FENCED_INSTANCE_ID when another member
// id now holds the instance).
func (c *Coordinator) classicMember(g *Group, groupID, memberID string, instance *string) (*member, int16) {
	switch {
	case groupID == "":
		return nil, kerr.InvalidGroupID.Code
	case g == nil || g.typ != Classic:
		return nil, kerr.UnknownMemberID.Code
	}
	if instance != nil {
		switch known, ok := g.static[*instance]; {
		case !ok:
			return nil, kerr.UnknownMemberID.Code
		case known != memberID:
			return nil, kerr.FencedInstanceID.Code
		}
	}
	m := g.members[memberID]
	if m == nil {
		return nil, kerr.UnknownMemberID.Code
	}
	return m, 0
}

// Heartbeat v0-4. During a rebalance the answer is REBALANCE_IN_PROGRESS,
// which tells the member to rejoin; a member that sends nothing for its
// session.timeout.ms is removed by Tick.
func (c *Coordinator) heartbeat(req *kmsg.HeartbeatRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
	g := c.groups[req.Group]
	if g != nil && g.typ == Consumer && g.cg != nil {
		return c.classicHeartbeatConsumer(g, req)
	}
	m, code := c.classicMember(g, req.Group, req.MemberID, req.InstanceID)
	switch {
	case code != 0:
	case g.state == Empty:
		code = kerr.UnknownMemberID.Code
	case req.Generation != g.generation:
		code = kerr.IllegalGeneration.Code
	case g.state == PreparingRebalance:
		code = kerr.RebalanceInProgress.Code
		m.deadline = c.now + int64(m.sessionTimeout)
	default:
		m.deadline = c.now + int64(m.sessionTimeout)
	}
	resp.ErrorCode = code
	return resp
}

// LeaveGroup v0-5; v3+ leaves a batch of members, each named by member id
// or by group.instance.id (KIP-345).
func (c *Coordinator) leaveGroup(req *kmsg.LeaveGroupRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.LeaveGroupResponse)
	g := c.groups[req.Group]
	if req.Group == "" {
		resp.ErrorCode = kerr.InvalidGroupID.Code
		return resp
	}
	leaving := req.Members
	if req.Version < 3 {
		leaving = []kmsg.LeaveGroupRequestMember{{MemberID: req.MemberID}}
	}
	for _, lm := range leaving {
		rm := kmsg.NewLeaveGroupResponseMember()
		rm.MemberID, rm.InstanceID = lm.MemberID, lm.InstanceID
		rm.ErrorCode = c.leaveOne(g, lm)
		resp.Members = append(resp.Members, rm)
	}
	if req.Version < 3 {
		resp.ErrorCode, resp.Members = resp.Members[0].ErrorCode, nil
	}
	return resp
}

func (c *Coordinator) leaveOne(g *Group, lm kmsg.LeaveGroupRequestMember) int16 {
	if g != nil && g.typ == Consumer && g.cg != nil {
		return c.classicLeaveConsumer(g, lm)
	}
	if g == nil || g.typ != Classic {
		return kerr.UnknownMemberID.Code
	}
	id := lm.MemberID
	if lm.InstanceID != nil {
		known, ok := g.static[*lm.InstanceID]
		switch {
		case !ok:
			return kerr.UnknownMemberID.Code
		case id != "" && known != id:
			return kerr.FencedInstanceID.Code
		}
		id = known
	}
	if _, ok := g.pending[id]; ok {
		delete(g.pending, id)
		c.maybeCompleteJoin(g)
		return 0
	}
	m := g.members[id]
	if m == nil {
		return kerr.UnknownMemberID.Code
	}
	c.removeAndRebalance(g, m, "left the group")
	return 0
}
