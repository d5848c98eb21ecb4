package group

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// The KIP-848 consumer group protocol: members heartbeat
// (ConsumerGroupHeartbeat) with their subscription and what they own; the
// coordinator keeps a group epoch that advances whenever membership,
// subscriptions or the subscribed topics' partition counts change,
// computes the target assignment with a server-side assignor ("uniform",
// sticky and balanced, or "range"), and moves each member towards its
// target: partitions a member must give up are revoked first (the member
// stays at its epoch until a heartbeat shows it no longer owns them), and
// a partition goes to its new owner only once its old owner has released
// it. A member that owns nothing to revoke moves to the assignment epoch.

// consumerGroup is a KIP-848 group's state.
type consumerGroup struct {
	epoch           int32 // group epoch
	assignmentEpoch int32 // epoch of target
	assignor        string
	target          assign.Assignment
	members         map[string]*consumerMember
	owner           map[assign.TopicPartition]string // held (assigned or being revoked) by
	topicsSig       string                           // subscribed topics' partition counts at the last epoch
	written         map[string][]byte                // the group's records in the log, by key (consumer_records.go)
}

type consumerMember struct {
	id, instanceID       string
	clientID, clientHost string
	rackID               string
	epoch, prevEpoch     int32
	topics               []string // subscribed: the names it sent, or its regex resolved
	regex                string   // SubscribedTopicRegex, "" for a member subscribing by name
	assignor             string
	rebalanceTimeout     int32
	assigned             map[assign.TopicPartition]bool
	revoking             map[assign.TopicPartition]bool
	sent                 string       // the assignment last sent, to send changes only
	deadline             int64        // session expiry
	rebalanceDeadline    int64        // revocation must be acknowledged by then
	classic              *classicInfo // set for a member of the classic protocol (consumer_classic.go)
}

func (g *Group) consumerEmpty() bool { return g.cg == nil || len(g.cg.members) == 0 }

// ConsumerGroupHeartbeat v0-1. v1 (KIP-1082) has the client make its member
// id. Member epoch 0 joins, -1 leaves, -2 is a static member's temporary
// leave (treated as a leave here). A member subscribes by topic names or,
// from v1, by a regular expression (regex.go).
func (c *Coordinator) consumerHeartbeat(call Call, req *kmsg.ConsumerGroupHeartbeatRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.ConsumerGroupHeartbeatResponse)
	fail := func(e *kerr.Error, msg string) kmsg.Response {
		resp.ErrorCode, resp.ErrorMessage = e.Code, &msg
		return resp
	}
	switch {
	case req.Group == "":
		return fail(kerr.InvalidGroupID, "the group id is empty")
	case req.SubscribedTopicRegex != nil && req.SubscribedTopicNames != nil:
		return fail(kerr.InvalidRequest, "SubscribedTopicNames and SubscribedTopicRegex cannot be set together")
	case req.MemberEpoch == 0 && req.SubscribedTopicNames == nil && req.SubscribedTopicRegex == nil:
		return fail(kerr.InvalidRequest, "a joining member must name its subscribed topics or a regex")
	case req.SubscribedTopicRegex != nil && !validRegex(*req.SubscribedTopicRegex):
		return fail(kerr.InvalidRegularExpression, fmt.Sprintf("SubscribedTopicRegex %q does not compile", *req.SubscribedTopicRegex))
	case req.ServerAssignor != nil && *req.ServerAssignor != "uniform" && *req.ServerAssignor != "range":
		return fail(kerr.UnsupportedAssignor, "server assignors are uniform and range")
	case req.MemberEpoch > 0 && req.MemberID == "":
		return fail(kerr.UnknownMemberID, "a member id is required")
	}
	g := c.group(req.Group, req.MemberEpoch == 0)
	if g == nil {
		return fail(kerr.UnknownMemberID, "no such group")
	}
	if g.typ == Classic {
		if (len(g.members) > 0 || len(g.pending) > 0) && !c.convertClassic(g) {
			return fail(kerr.GroupIDNotFound, fmt.Sprintf("group %s is a classic group that cannot be converted now (state %s)", g.id, g.state))
		}
		g.typ = Consumer
	}
	if g.cg == nil {
		g.cg = &consumerGroup{members: map[string]*consumerMember{}, owner: map[assign.TopicPartition]string{}, assignor: "uniform"}
	}
	cg := g.cg
	if req.MemberEpoch < 0 {
		if m := cg.members[req.MemberID]; m != nil {
			c.removeConsumer(g, m, "left the group")
			c.storeConsumer(g)
			c.maybeDowngrade(g)
		}
		resp.MemberID, resp.MemberEpoch = &req.MemberID, req.MemberEpoch
		return resp
	}
	m := cg.members[req.MemberID]
	bump := false // the group epoch advances once per heartbeat at most
	switch {
	case req.MemberEpoch == 0 && m == nil:
		id := req.MemberID
		if id == "" || req.Version == 0 {
			id = c.newMemberID("")[1:]
		}
		m = &consumerMember{id: id, clientID: call.ClientID, clientHost: call.ClientHost,
			assigned: map[assign.TopicPartition]bool{}, revoking: map[assign.TopicPartition]bool{}}
		if req.InstanceID != nil {
			m.instanceID = *req.InstanceID
			for _, old := range sortedKeys(cg.members) { // a restarted static member takes over
				if o := cg.members[old]; o.instanceID == m.instanceID {
					m.epoch, m.prevEpoch, m.assigned, m.revoking = o.epoch, o.prevEpoch, o.assigned, o.revoking
					//purity:unordered sets the same owner for every key
					for tp := range o.assigned {
						cg.owner[tp] = m.id
					}
					//purity:unordered sets the same owner for every key
					for tp := range o.revoking {
						cg.owner[tp] = m.id
					}
					delete(cg.members, old)
					if cg.target != nil {
						cg.target[m.id] = cg.target[old]
						delete(cg.target, old)
					}
				}
			}
		}
		cg.members[m.id] = m
		bump = true
		c.cfg.Logf("group %s: consumer %s joined", g.id, m.id)
	case m == nil:
		return fail(kerr.UnknownMemberID, "unknown member")
	case req.MemberEpoch == 0:
		// A member rejoining under its id: it lost everything.
		c.release(cg, m)
		m.epoch, m.sent = 0, ""
	case req.MemberEpoch != m.epoch && req.MemberEpoch != m.prevEpoch:
		return fail(kerr.FencedMemberEpoch, fmt.Sprintf("member epoch %d, the coordinator has %d", req.MemberEpoch, m.epoch))
	}
	session, heartbeat := c.consumerTimeouts(g.id)
	m.deadline = c.now + int64(session)
	if req.RebalanceTimeoutMillis > 0 {
		m.rebalanceTimeout = req.RebalanceTimeoutMillis
	}
	if req.RackID != nil {
		m.rackID = *req.RackID
	}
	if req.ServerAssignor != nil && *req.ServerAssignor != m.assignor {
		m.assignor = *req.ServerAssignor
		bump = true
	}
	switch {
	case req.SubscribedTopicNames != nil:
		topics := slices.Compact(slices.Sorted(slices.Values(req.SubscribedTopicNames)))
		if m.regex != "" || !slices.Equal(topics, m.topics) {
			m.topics, m.regex = topics, ""
			bump = true
		}
	case req.SubscribedTopicRegex != nil && *req.SubscribedTopicRegex != m.regex:
		m.regex, m.topics = *req.SubscribedTopicRegex, nil
		bump = true
	}
	c.advanceEpoch(g, call, bump)
	var owned map[assign.TopicPartition]bool
	if req.Topics != nil {
		owned = map[assign.TopicPartition]bool{}
		for _, t := range req.Topics {
			if name, _, ok := c.cfg.Topics.TopicByID(t.TopicID); ok {
				for _, p := range t.Partitions {
					owned[assign.TopicPartition{Topic: name, Partition: p}] = true
				}
			}
		}
	}
	c.reconcile(g, m, owned)
	c.updateConsumerState(g)
	c.storeConsumer(g)
	resp.MemberID, resp.MemberEpoch = &m.id, m.epoch
	resp.HeartbeatIntervalMillis = heartbeat
	if a := c.assignmentOf(m); req.MemberEpoch == 0 || req.Topics != nil && req.SubscribedTopicNames != nil || a.sig != m.sent {
		m.sent = a.sig
		resp.Assignment = &a.resp
	}
	return resp
}

// advanceEpoch refreshes the regex subscriptions (as the heartbeating
// member may see them: call) and the subscribed topics' partition
// counts; when they or the member (bump) changed, the group epoch
// advances and the target is computed for it.
func (c *Coordinator) advanceEpoch(g *Group, call Call, bump bool) {
	cg := g.cg
	if c.resolveRegexes(cg, call.MayDescribe) {
		bump = true
	}
	if sig := c.topicsSig(cg); sig != cg.topicsSig {
		cg.topicsSig = sig
		bump = true
	}
	if bump {
		cg.epoch++
	}
	if cg.epoch != cg.assignmentEpoch {
		c.computeTarget(g)
	}
}

// topicsSig renders the partition counts of every subscribed topic.
func (c *Coordinator) topicsSig(cg *consumerGroup) string {
	var topics []string
	for _, m := range cg.members {
		topics = append(topics, m.topics...)
	}
	var b strings.Builder
	for _, t := range slices.Compact(slices.Sorted(slices.Values(topics))) {
		_, n, _ := c.cfg.Topics.Topic(t)
		fmt.Fprintf(&b, "%s:%d,", t, n)
	}
	return b.String()
}

// computeTarget runs the server assignor for the group epoch.
func (c *Coordinator) computeTarget(g *Group) {
	cg := g.cg
	counts := map[string]int32{}
	var ms []assign.Member
	for _, id := range sortedKeys(cg.members) {
		m := cg.members[id]
		if m.assignor != "" {
			cg.assignor = m.assignor
		}
		am := assign.Member{ID: m.id, InstanceID: m.instanceID, Topics: m.topics, Generation: m.epoch}
		for tp := range m.assigned {
			am.Owned = append(am.Owned, tp)
		}
		assign.SortPartitions(am.Owned)
		ms = append(ms, am)
		for _, t := range m.topics {
			if _, n, ok := c.cfg.Topics.Topic(t); ok {
				counts[t] = n
			}
		}
	}
	a := assign.Sticky
	if cg.assignor == "range" {
		a = assign.Range
	}
	cg.target = a.Assign(ms, counts)
	cg.assignmentEpoch = cg.epoch
	c.cfg.Logf("group %s: target assignment for epoch %d (%s):\n%s", g.id, cg.epoch, cg.assignor, cg.target)
}

// reconcile moves a member towards its target. owned is what the member
// reports it owns, nil when it did not say.
func (c *Coordinator) reconcile(g *Group, m *consumerMember, owned map[assign.TopicPartition]bool) {
	cg := g.cg
	if len(m.revoking) > 0 {
		if owned == nil {
			return
		}
		//purity:unordered an any-of check; order cannot matter
		for tp := range m.revoking {
			if owned[tp] {
				return // still revoking
			}
		}
		//purity:unordered deletes only; order cannot matter
		for tp := range m.revoking {
			if cg.owner[tp] == m.id {
				delete(cg.owner, tp)
			}
		}
		m.revoking, m.rebalanceDeadline = map[assign.TopicPartition]bool{}, 0
	}
	target := map[assign.TopicPartition]bool{}
	for _, tp := range cg.target[m.id] {
		target[tp] = true
	}
	if m.epoch != cg.assignmentEpoch {
		//purity:unordered moves each key between sets on its own
		for tp := range m.assigned {
			if !target[tp] {
				delete(m.assigned, tp)
				m.revoking[tp] = true
			}
		}
		if len(m.revoking) > 0 {
			m.rebalanceDeadline = c.now + int64(max(m.rebalanceTimeout, 1))
			return
		}
		m.prevEpoch, m.epoch = m.epoch, cg.assignmentEpoch
	}
	for _, tp := range cg.target[m.id] {
		if !m.assigned[tp] && cg.owner[tp] == "" {
			cg.owner[tp] = m.id
			m.assigned[tp] = true
		}
	}
}

// release frees everything a member holds.
func (c *Coordinator) release(cg *consumerGroup, m *consumerMember) {
	//purity:unordered deletes only; order cannot matter
	for tp, id := range cg.owner {
		if id == m.id {
			delete(cg.owner, tp)
		}
	}
	m.assigned, m.revoking = map[assign.TopicPartition]bool{}, map[assign.TopicPartition]bool{}
}

// removeConsumer drops a member, which advances the group epoch.
func (c *Coordinator) removeConsumer(g *Group, m *consumerMember, reason string) {
	cg := g.cg
	c.release(cg, m)
	delete(cg.members, m.id)
	cg.epoch++
	c.cfg.Logf("group %s: consumer %s removed (%s), group epoch %d", g.id, m.id, reason, cg.epoch)
	c.computeTarget(g)
	c.updateConsumerState(g)
}

// updateConsumerState derives the group's state: Empty without members,
// Reconciling while a member is behind its target, else Stable.
func (c *Coordinator) updateConsumerState(g *Group) {
	cg := g.cg
	st := Stable
	if len(cg.members) == 0 {
		st = Empty
	}
	//purity:unordered sets a flag; order cannot matter
	for _, m := range cg.members {
		if m.epoch != cg.assignmentEpoch || len(m.revoking) > 0 || len(m.assigned) != len(cg.target[m.id]) {
			st = Reconciling
		}
	}
	g.setState(st, c.now)
}

type memberAssignment struct {
	sig  string
	resp kmsg.ConsumerGroupHeartbeatResponseAssignment
}

func (c *Coordinator) assignmentOf(m *consumerMember) memberAssignment {
	tps := make([]assign.TopicPartition, 0, len(m.assigned))
	for tp := range m.assigned {
		tps = append(tps, tp)
	}
	assign.SortPartitions(tps)
	var a memberAssignment
	a.resp = kmsg.NewConsumerGroupHeartbeatResponseAssignment()
	a.resp.Topics = []kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic{}
	for i, tp := range tps {
		if i == 0 || tp.Topic != tps[i-1].Topic {
			id, _, _ := c.cfg.Topics.Topic(tp.Topic)
			a.resp.Topics = append(a.resp.Topics, kmsg.ConsumerGroupHeartbeatResponseAssignmentTopic{TopicID: id})
		}
		last := &a.resp.Topics[len(a.resp.Topics)-1]
		last.Partitions = append(last.Partitions, tp.Partition)
	}
	a.sig = fmt.Sprint(tps)
	return a
}

// tickConsumer expires sessions, and fences members that did not revoke
// within their rebalance timeout.
func (c *Coordinator) tickConsumer(g *Group) {
	if g.cg == nil {
		return
	}
	for _, id := range sortedKeys(g.cg.members) {
		m := g.cg.members[id]
		switch {
		case m.deadline <= c.now:
			c.removeConsumer(g, m, "session timed out")
		case m.rebalanceDeadline > 0 && m.rebalanceDeadline <= c.now:
			c.removeConsumer(g, m, "did not revoke in time")
		}
	}
	c.storeConsumer(g)
	c.maybeDowngrade(g)
}
