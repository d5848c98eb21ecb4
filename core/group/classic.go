package group

import (
	"bytes"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// JoinGroup v0-9. A dynamic member's first join on v4+ gets
// MEMBER_ID_REQUIRED with its new member id, and joins for real with it
// (KIP-394). Static members (group.instance.id, KIP-345) join at once; a
// static member rejoining under a new member id fences the old one and, in
// a stable group whose protocol its metadata does not change, keeps its
// assignment without a rebalance (its leader, on v9+, is told to skip assignment, KIP-814).
// Every join waits at the barrier until all known members have rejoined
// or the largest rebalance.timeout.ms passes; a new group's first barrier
// also waits group.initial.rebalance.delay.ms for more members.
func (c *Coordinator) joinGroup(call Call, req *kmsg.JoinGroupRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
	fail := func(e *kerr.Error) kmsg.Response {
		resp.ErrorCode = e.Code
		resp.Generation = -1
		resp.Protocol = new(string)
		return resp
	}
	if req.Group == "" {
		return fail(kerr.InvalidGroupID)
	}
	if t := req.SessionTimeoutMillis; t < c.cfg.MinSessionTimeoutMs || t > c.cfg.MaxSessionTimeoutMs {
		return fail(kerr.InvalidSessionTimeout)
	}
	if req.Version == 0 {
		req.RebalanceTimeoutMillis = req.SessionTimeoutMillis
	}
	g := c.group(req.Group, req.MemberID == "")
	if g == nil {
		return fail(kerr.UnknownMemberID)
	}
	if g.typ == Consumer {
		if !g.consumerEmpty() {
			return c.classicJoinConsumer(call, g, req)
		}
		g.typ, g.cg = Classic, nil
	}
	if !g.supports(req.ProtocolType, req.Protocols) {
		return fail(kerr.InconsistentGroupProtocol)
	}
	instance := ""
	if req.InstanceID != nil {
		instance = *req.InstanceID
	}

	if req.MemberID == "" {
		if int32(len(g.members)+len(g.pending)) >= c.cfg.MaxSize {
			return fail(kerr.GroupMaxSizeReached)
		}
		if instance != "" {
			if old := g.members[g.static[instance]]; old != nil {
				return c.replaceStatic(g, old, call, req)
			}
			m := c.newMember(g, c.newMemberID(instance), call, req)
			g.static[instance] = m.id
			return c.addMember(g, m, call, req)
		}
		id := c.newMemberID(call.ClientID)
		if req.Version >= 4 {
			g.pending[id] = c.now + int64(req.SessionTimeoutMillis)
			resp.MemberID = id
			return fail(kerr.MemberIDRequired)
		}
		return c.addMember(g, c.newMember(g, id, call, req), call, req)
	}

	if instance != "" {
		switch known, ok := g.static[instance]; {
		case !ok:
			return fail(kerr.UnknownMemberID)
		case known != req.MemberID:
			return fail(kerr.FencedInstanceID)
		}
	}
	if _, ok := g.pending[req.MemberID]; ok {
		delete(g.pending, req.MemberID)
		return c.addMember(g, c.newMember(g, req.MemberID, call, req), call, req)
	}
	m := g.members[req.MemberID]
	if m == nil {
		return fail(kerr.UnknownMemberID)
	}
	switch g.state {
	case PreparingRebalance:
		c.updateMember(g, m, call, req)
		c.maybeCompleteJoin(g)
		return nil
	case CompletingRebalance:
		if sameProtocols(m.protocols, req.Protocols) {
			// It lost the answer: give it again (Kafka does the same).
			return c.joinResponse(g, m, req)
		}
	case Stable:
		if m.id != g.leader && sameProtocols(m.protocols, req.Protocols) {
			m.deadline = c.now + int64(m.sessionTimeout)
			return c.joinResponse(g, m, req)
		}
	default:
		return fail(kerr.UnknownMemberID)
	}
	c.updateMember(g, m, call, req)
	c.prepareRebalance(g, "member "+m.id+" rejoined with new metadata")
	return nil
}

// supports is Kafka's GroupMetadata.supportsProtocols: an empty group
// takes any consumer that names a protocol type and protocols; otherwise
// the type must match and one of the protocols must be one every member
// supports.
func (g *Group) supports(protocolType string, protocols []kmsg.JoinGroupRequestProtocol) bool {
	if protocolType == "" || len(protocols) == 0 {
		return false
	}
	if len(g.members) == 0 {
		return true
	}
	if protocolType != g.protocolType {
		return false
	}
	for _, p := range protocols {
		if g.supportedByAll(p.Name) {
			return true
		}
	}
	return false
}

func (g *Group) supportedByAll(name string) bool {
	//purity:unordered an all-members check; order cannot matter
	for _, m := range g.members {
		if !hasProtocol(m.protocols, name) {
			return false
		}
	}
	return true
}

func hasProtocol(ps []kmsg.JoinGroupRequestProtocol, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}

func sameProtocols(a, b []kmsg.JoinGroupRequestProtocol) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Metadata, b[i].Metadata) {
			return false
		}
	}
	return true
}

func (c *Coordinator) newMember(g *Group, id string, call Call, req *kmsg.JoinGroupRequest) *member {
	g.seq++
	m := &member{id: id, seq: g.seq}
	if req.InstanceID != nil {
		m.instanceID = *req.InstanceID
	}
	c.setJoin(m, call, req)
	return m
}

// setJoin records a member's join request: its protocols, timeouts and
// the call waiting at the barrier.
func (c *Coordinator) setJoin(m *member, call Call, req *kmsg.JoinGroupRequest) {
	m.clientID, m.clientHost = call.ClientID, call.ClientHost
	m.sessionTimeout, m.rebalanceTimeout = req.SessionTimeoutMillis, req.RebalanceTimeoutMillis
	m.protocols = req.Protocols
	if m.join != nil {
		// A second join while the first waits: the first's connection
		// is most likely gone; answer it so that nothing leaks.
		old := m.join.req.(*kmsg.JoinGroupRequest).ResponseKind().(*kmsg.JoinGroupResponse)
		old.ErrorCode, old.Generation, old.Protocol = kerr.RebalanceInProgress.Code, -1, new(string)
		m.join.call.Reply(old)
	}
	m.join = &waiting{call, req}
}

// addMember adds a member that is waiting at the barrier.
func (c *Coordinator) addMember(g *Group, m *member, call Call, req *kmsg.JoinGroupRequest) kmsg.Response {
	if len(g.members) == 0 {
		g.protocolType = req.ProtocolType
	}
	g.members[m.id] = m
	c.cfg.Logf("group %s: member %s joined", g.id, m.id)
	if g.state == PreparingRebalance && g.generation == 0 {
		g.newMemberAdded = true
	}
	if g.state == PreparingRebalance {
		c.maybeCompleteJoin(g)
	} else {
		c.prepareRebalance(g, "member "+m.id+" joined")
	}
	return nil
}

func (c *Coordinator) updateMember(g *Group, m *member, call Call, req *kmsg.JoinGroupRequest) {
	c.setJoin(m, call, req)
}

// replaceStatic handles a static member that rejoins without its member id
// (it restarted): it gets a new member id, and the old id is fenced. In a
// stable group whose protocol its new metadata leaves unchanged it keeps
// its assignment without a rebalance, as Kafka's
// updateStaticMemberAndRebalance does.
func (c *Coordinator) replaceStatic(g *Group, m *member, call Call, req *kmsg.JoinGroupRequest) kmsg.Response {
	oldID := m.id
	newID := c.newMemberID(m.instanceID)
	for _, w := range []*waiting{m.join, m.sync} {
		if w != nil {
			w.call.Reply(fencedResponse(w.req))
		}
	}
	m.join, m.sync = nil, nil
	delete(g.members, oldID)
	m.id = newID
	g.members[newID] = m
	g.static[m.instanceID] = newID
	if g.leader == oldID {
		g.leader = newID
	}
	if g.pendingSync[oldID] {
		delete(g.pendingSync, oldID)
		g.pendingSync[newID] = true
	}
	c.cfg.Logf("group %s: static member %s replaced %s", g.id, newID, oldID)
	m.clientID, m.clientHost = call.ClientID, call.ClientHost
	m.sessionTimeout, m.rebalanceTimeout = req.SessionTimeoutMillis, req.RebalanceTimeoutMillis
	m.protocols = req.Protocols
	// Kafka rebalances a stable group only if the new metadata would
	// change the group's protocol; a changed subscription is the
	// leader's to notice.
	if g.state == Stable && g.selectProtocol() == g.protocol {
		m.deadline = c.now + int64(m.sessionTimeout)
		if err := c.storeGroup(g); err != nil {
			resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
			resp.ErrorCode, resp.Generation, resp.Protocol = writeFailed(), -1, new(string)
			return resp
		}
		resp := c.joinResponse(g, m, req)
		resp.SkipAssignment = m.id == g.leader
		return resp
	}
	c.setJoin(m, call, req)
	if g.state == PreparingRebalance {
		c.maybeCompleteJoin(g)
	} else {
		c.prepareRebalance(g, "static member "+newID+" rejoined with new metadata")
	}
	return nil
}

func fencedResponse(req kmsg.Request) kmsg.Response {
	switch r := req.(type) {
	case *kmsg.JoinGroupRequest:
		resp := r.ResponseKind().(*kmsg.JoinGroupResponse)
		resp.ErrorCode, resp.Generation, resp.Protocol = kerr.FencedInstanceID.Code, -1, new(string)
		return resp
	case *kmsg.SyncGroupRequest:
		resp := r.ResponseKind().(*kmsg.SyncGroupResponse)
		resp.ErrorCode = kerr.FencedInstanceID.Code
		return resp
	}
	panic("group: fencing a request that is neither JoinGroup nor SyncGroup")
}

// joinResponse is the answer a member gets when the barrier completes;
// the leader's lists every member with its metadata for the chosen
// protocol.
func (c *Coordinator) joinResponse(g *Group, m *member, req *kmsg.JoinGroupRequest) *kmsg.JoinGroupResponse {
	resp := req.ResponseKind().(*kmsg.JoinGroupResponse)
	resp.Generation, resp.LeaderID, resp.MemberID = g.generation, g.leader, m.id
	pt, p := g.protocolType, g.protocol
	resp.ProtocolType, resp.Protocol = &pt, &p
	if m.id == g.leader {
		for _, o := range g.sorted() {
			rm := kmsg.NewJoinGroupResponseMember()
			rm.MemberID, rm.ProtocolMetadata = o.id, o.metadataFor(g.protocol)
			if o.instanceID != "" {
				inst := o.instanceID
				rm.InstanceID = &inst
			}
			resp.Members = append(resp.Members, rm)
		}
	}
	return resp
}
