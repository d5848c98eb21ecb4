package share

import (
	"fmt"
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Group is a share group's membership (KIP-932): members heartbeat with
// ShareGroupHeartbeat and their subscription; the group epoch advances
// when a member joins, leaves or changes its subscription, or a
// subscribed topic's partition count changes, and the assignment is
// recomputed for it. Unlike a consumer group there is no revocation: a
// partition may be assigned to several members at once, since records,
// not partitions, are what a member holds.
type Group struct {
	ID              string
	Epoch           int32
	AssignmentEpoch int32 // the epoch the assignment was computed for
	topicsSig       string
	members         map[string]*Member
	// Assigned is every share partition ever assigned in the group (its
	// group coordinator's record of them, Kafka's initialized
	// partitions): their state is kept by share coordinators, possibly
	// on other brokers, until DeleteShareGroupOffsets or DeleteGroups.
	Assigned map[TP]bool
}

// Member is one share consumer.
type Member struct {
	ID, ClientID, ClientHost, Rack string
	Epoch, PrevEpoch               int32
	Topics                         []string           // subscribed, sorted
	Assigned                       map[string][]int32 // topic -> partitions
	deadline                       int64
}

// Members lists the members in id order.
func (g *Group) Members() []*Member {
	out := make([]*Member, 0, len(g.members))
	for _, id := range slices.Sorted(maps.Keys(g.members)) {
		out = append(out, g.members[id])
	}
	return out
}

// State is "Empty" without members, else "Stable" (a share group never
// waits for a revocation).
func (g *Group) State() string {
	if len(g.members) == 0 {
		return "Empty"
	}
	return "Stable"
}

// Heartbeat serves ShareGroupHeartbeat v1: the client makes its member id;
// epoch 0 joins (naming the subscribed topics), -1 leaves, anything else
// must be the member's epoch or the one before (its answer may have been
// lost). The assignment is sent on a join, a full heartbeat (one naming
// its topics) or when the member's epoch moves.
func (e *Engine) Heartbeat(now int64, clientID, host string, req *kmsg.ShareGroupHeartbeatRequest) *kmsg.ShareGroupHeartbeatResponse {
	e.advance(now)
	resp := req.ResponseKind().(*kmsg.ShareGroupHeartbeatResponse)
	fail := func(err *kerr.Error, msg string) *kmsg.ShareGroupHeartbeatResponse {
		resp.ErrorCode, resp.ErrorMessage = err.Code, &msg
		return resp
	}
	switch {
	case req.GroupID == "":
		return fail(kerr.InvalidGroupID, "the group id is empty")
	case req.MemberID == "":
		return fail(kerr.InvalidRequest, "the member id is empty")
	case req.MemberEpoch == 0 && len(req.SubscribedTopicNames) == 0:
		return fail(kerr.InvalidRequest, "a joining member must name its subscribed topics")
	}
	g := e.groups[req.GroupID]
	bump := false // the group epoch advances once per heartbeat at most
	m := (*Member)(nil)
	if g != nil {
		m = g.members[req.MemberID]
	}
	switch {
	case req.MemberEpoch == -1:
		if m == nil {
			return fail(kerr.UnknownMemberID, "unknown member")
		}
		e.removeMember(g, m, "left the group")
		resp.MemberID, resp.MemberEpoch = &req.MemberID, -1
		return resp
	case req.MemberEpoch == 0 && m == nil:
		if g == nil {
			g = &Group{ID: req.GroupID, members: map[string]*Member{}, Assigned: map[TP]bool{}}
			e.groups[g.ID] = g
		}
		m = &Member{ID: req.MemberID, Assigned: map[string][]int32{}}
		g.members[m.ID] = m
		bump = true
		e.cfg.Logf("share group %s: member %s joined", g.ID, m.ID)
	case m == nil:
		return fail(kerr.UnknownMemberID, "unknown member")
	case req.MemberEpoch != 0 && req.MemberEpoch != m.Epoch && req.MemberEpoch != m.PrevEpoch:
		return fail(kerr.FencedMemberEpoch, fmt.Sprintf("member epoch %d, the coordinator has %d", req.MemberEpoch, m.Epoch))
	}
	session, heartbeat := e.timeouts(g.ID)
	m.ClientID, m.ClientHost, m.deadline = clientID, host, e.now+int64(session)
	if req.RackID != nil {
		m.Rack = *req.RackID
	}
	if req.SubscribedTopicNames != nil {
		if t := slices.Compact(slices.Sorted(slices.Values(req.SubscribedTopicNames))); !slices.Equal(t, m.Topics) {
			m.Topics = t
			bump = true
		}
	}
	if bump {
		g.Epoch++
	}
	e.assign(g)
	before := m.Epoch
	if m.Epoch != g.Epoch {
		m.PrevEpoch, m.Epoch = m.Epoch, g.Epoch
	}
	resp.MemberID, resp.MemberEpoch = &m.ID, m.Epoch
	resp.HeartbeatIntervalMillis = heartbeat
	if req.MemberEpoch == 0 || req.SubscribedTopicNames != nil || m.Epoch != before {
		a := &kmsg.ShareGroupHeartbeatResponseAssignment{}
		for _, t := range slices.Sorted(maps.Keys(m.Assigned)) {
			id, _, _ := e.cfg.Topics.Topic(t)
			a.TopicPartitions = append(a.TopicPartitions, kmsg.ShareGroupHeartbeatResponseAssignmentTopicPartition{TopicID: id, Partitions: m.Assigned[t]})
		}
		resp.Assignment = a
	}
	return resp
}

// assign recomputes the assignment when the group epoch moved or a
// subscribed topic's partition count changed. Kafka's "simple" share
// assignor in its homogeneous form: per topic, the subscribers (in id
// order) and the partitions are dealt out in turn over
// ceil(members/partitions) rounds of the partitions, so every partition
// has a member, each member about the same number, and when members
// outnumber partitions a partition goes to several members.
func (e *Engine) assign(g *Group) {
	subs := map[string][]string{}
	for _, m := range g.Members() {
		for _, t := range m.Topics {
			subs[t] = append(subs[t], m.ID)
		}
	}
	sig := ""
	for _, t := range slices.Sorted(maps.Keys(subs)) {
		_, n, _ := e.cfg.Topics.Topic(t)
		sig += fmt.Sprintf("%s:%d,", t, n)
	}
	if sig != g.topicsSig && g.topicsSig != "" && g.AssignmentEpoch == g.Epoch {
		g.Epoch++ // not again when a join, leave or subscription moved it
	}
	if sig == g.topicsSig && g.AssignmentEpoch == g.Epoch {
		return
	}
	g.topicsSig = sig
	//purity:unordered resets each member
	for _, m := range g.members {
		m.Assigned = map[string][]int32{}
	}
	//purity:unordered each topic is dealt out on its own
	for t, ids := range subs {
		_, n, ok := e.cfg.Topics.Topic(t)
		if !ok || n == 0 {
			continue
		}
		slots := (len(ids) + int(n) - 1) / int(n) * int(n)
		for i := range slots {
			m, p := g.members[ids[i%len(ids)]], int32(i%int(n))
			if !slices.Contains(m.Assigned[t], p) {
				m.Assigned[t] = append(m.Assigned[t], p)
			}
			id, _, _ := e.cfg.Topics.Topic(t)
			g.Assigned[TP{id, p}] = true
		}
		for _, id := range ids {
			slices.Sort(g.members[id].Assigned[t])
		}
	}
	g.AssignmentEpoch = g.Epoch
}
