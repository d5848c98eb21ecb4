package group

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// prepareRebalance opens the join barrier (Kafka's prepareRebalance). A
// group waiting for its leader's assignment tells the members waiting in
// SyncGroup to rejoin.
func (c *Coordinator) prepareRebalance(g *Group, reason string) {
	if g.state == CompletingRebalance {
		for _, m := range g.sorted() {
			m.assignment = nil
			if m.sync != nil {
				resp := m.sync.req.(*kmsg.SyncGroupRequest).ResponseKind().(*kmsg.SyncGroupResponse)
				resp.ErrorCode = kerr.RebalanceInProgress.Code
				w := m.sync
				m.sync, m.deadline = nil, c.now+int64(m.sessionTimeout)
				w.call.Reply(resp)
			}
		}
	}
	g.pendingSync, g.syncDeadline = nil, 0
	rt := g.maxRebalanceTimeout()
	g.initialDelay = false
	if g.state == Empty && c.cfg.InitialRebalanceDelayMs > 0 {
		delay := min(int64(c.cfg.InitialRebalanceDelayMs), rt)
		g.initialDelay, g.delayRemaining, g.newMemberAdded = true, max(rt-delay, 0), false
		g.joinDeadline = c.now + delay
	} else {
		g.joinDeadline = c.now + rt
	}
	g.setState(PreparingRebalance, c.now)
	c.cfg.Logf("group %s: preparing to rebalance generation %d (%s)", g.id, g.generation, reason)
	c.maybeCompleteJoin(g)
}

// maybeCompleteJoin completes the barrier when every member has rejoined
// and no member id handed out with MEMBER_ID_REQUIRED is still unused
// (Kafka's hasAllMembersJoined), unless the initial delay holds it.
func (c *Coordinator) maybeCompleteJoin(g *Group) {
	if g.state != PreparingRebalance || g.initialDelay || len(g.pending) > 0 {
		return
	}
	//purity:unordered an all-members check; order cannot matter
	for _, m := range g.members {
		if m.join == nil {
			return
		}
	}
	c.completeJoin(g)
}

// completeJoin ends the barrier: members that did not rejoin are removed,
// the generation advances, a protocol is chosen, and every waiting member
// gets its JoinGroup answer.
func (c *Coordinator) completeJoin(g *Group) {
	for _, m := range g.sorted() {
		if m.join == nil {
			c.cfg.Logf("group %s: member %s did not rejoin in time", g.id, m.id)
			c.removeMember(g, m)
		}
	}
	g.initialDelay, g.joinDeadline = false, 0
	g.generation++
	if len(g.members) == 0 {
		g.protocol, g.leader = "", ""
		g.setState(Empty, c.now)
		c.cfg.Logf("group %s: generation %d is empty", g.id, g.generation)
		_ = c.storeGroup(g)
		return
	}
	ms := g.sorted()
	if g.members[g.leader] == nil {
		g.leader = ms[0].id
	}
	g.protocol = g.selectProtocol()
	g.setState(CompletingRebalance, c.now)
	g.pendingSync = map[string]bool{}
	g.syncDeadline = c.now + g.maxRebalanceTimeout()
	c.cfg.Logf("group %s: generation %d with %d members, protocol %s, leader %s", g.id, g.generation, len(ms), g.protocol, g.leader)
	for _, m := range ms {
		g.pendingSync[m.id] = true
		w := m.join
		m.join, m.deadline = nil, c.now+int64(m.sessionTimeout)
		w.call.Reply(c.joinResponse(g, m, w.req.(*kmsg.JoinGroupRequest)))
	}
}

// selectProtocol is Kafka's GroupMetadata.selectProtocol: of the protocols
// every member supports, each member votes for the first in its own
// preference order, and the most votes win. Ties go to the protocol the
// earliest member prefers.
func (g *Group) selectProtocol() string {
	ms := g.sorted()
	var candidates []string
	for _, p := range ms[0].protocols {
		if g.supportedByAll(p.Name) {
			candidates = append(candidates, p.Name)
		}
	}
	votes := map[string]int{}
	for _, m := range ms {
		for _, p := range m.protocols {
			if hasName(candidates, p.Name) {
				votes[p.Name]++
				break
			}
		}
	}
	best := ""
	for _, name := range candidates {
		if best == "" || votes[name] > votes[best] {
			best = name
		}
	}
	return best
}

func hasName(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// removeMember drops a member without starting a rebalance; a call it has
// waiting is answered with UNKNOWN_MEMBER_ID.
func (c *Coordinator) removeMember(g *Group, m *member) {
	delete(g.members, m.id)
	delete(g.pendingSync, m.id)
	if m.instanceID != "" && g.static[m.instanceID] == m.id {
		delete(g.static, m.instanceID)
	}
	failWaiting(m, kerr.UnknownMemberID.Code)
}

// failWaiting answers the JoinGroup or SyncGroup a member has waiting
// with code.
func failWaiting(m *member, code int16) {
	if m.join != nil {
		resp := m.join.req.(*kmsg.JoinGroupRequest).ResponseKind().(*kmsg.JoinGroupResponse)
		resp.ErrorCode, resp.Generation, resp.Protocol, resp.MemberID = code, -1, new(string), m.id
		m.join.call.Reply(resp)
		m.join = nil
	}
	if m.sync != nil {
		resp := m.sync.req.(*kmsg.SyncGroupRequest).ResponseKind().(*kmsg.SyncGroupResponse)
		resp.ErrorCode = code
		m.sync.call.Reply(resp)
		m.sync = nil
	}
}

// removeAndRebalance removes a member that left or timed out.
func (c *Coordinator) removeAndRebalance(g *Group, m *member, reason string) {
	c.removeMember(g, m)
	c.cfg.Logf("group %s: member %s removed (%s)", g.id, m.id, reason)
	switch g.state {
	case Stable, CompletingRebalance:
		c.prepareRebalance(g, "member "+m.id+" "+reason)
	case PreparingRebalance:
		c.maybeCompleteJoin(g)
	}
}

// tickClassic expires what is due: the join barrier, the sync barrier,
// member ids handed out but never used, and sessions.
func (c *Coordinator) tickClassic(g *Group) {
	now := c.now
	for _, id := range sortedKeys(g.pending) {
		if g.pending[id] <= now {
			delete(g.pending, id)
			c.maybeCompleteJoin(g)
		}
	}
	if g.state == PreparingRebalance && g.joinDeadline <= now {
		if g.initialDelay && g.newMemberAdded && g.delayRemaining > 0 {
			delay := min(int64(c.cfg.InitialRebalanceDelayMs), g.delayRemaining)
			g.delayRemaining -= delay
			g.newMemberAdded = false
			g.joinDeadline = now + delay
		} else {
			g.initialDelay = false
			c.completeJoin(g)
		}
	}
	if len(g.pendingSync) > 0 && g.syncDeadline <= now && (g.state == CompletingRebalance || g.state == Stable) {
		ids := sortedKeys(g.pendingSync)
		for _, id := range ids {
			if m := g.members[id]; m != nil {
				c.cfg.Logf("group %s: member %s did not sync in time", g.id, id)
				c.removeMember(g, m)
			}
		}
		g.pendingSync = nil
		c.prepareRebalance(g, "members did not sync in time")
	}
	for _, m := range g.sorted() {
		if m.join == nil && m.sync == nil && m.deadline <= now && g.members[m.id] == m {
			c.removeAndRebalance(g, m, "session timed out")
		}
	}
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
