package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/group/assign"
)

// member is a teaching consumer group member of the classic protocol, as
// the Java consumer's ConsumerCoordinator and franz-go's group consumer
// behave:
//
//  1. FindCoordinator for the group id: the leader of partition
//     abs(groupId.hashCode()) % 50 of __consumer_offsets.
//  2. JoinGroup. A new member's first join (v4+) is answered
//     MEMBER_ID_REQUIRED with the member id to join with (KIP-394); a
//     static member (group.instance.id, KIP-345) joins at once.
//  3. The coordinator answers every join once all members have joined;
//     the leader's answer lists the members and their subscriptions. The
//     leader asks for Metadata (partition counts), runs the assignor the
//     group chose (core/group/assign) and sends the plan in SyncGroup;
//     the others send an empty SyncGroup and get their share back.
//  4. Heartbeat every heartbeat.interval.ms, from a background thread,
//     independent of poll (KIP-62); an answer REBALANCE_IN_PROGRESS means
//     rejoin. Under the eager protocols (range, roundrobin, sticky) a
//     member gives up everything before it rejoins; under
//     cooperative-sticky it keeps what it owns, gives up only what the new
//     assignment takes away, and then rejoins once more so that the
//     partitions can move (KIP-429).
//  5. No heartbeat answer for session.timeout.ms: the coordinator is
//     marked unknown and looked up again.
type member struct {
	conn
	broker   string // bootstrap broker: FindCoordinator, Metadata, Fetch
	coord    string // the coordinator's broker; "" while unknown
	groupID  string
	topics   []string
	assignor assign.Assignor
	instance string // group.instance.id (KIP-345); "" for a dynamic member

	sessionMs, rebalanceMs, heartbeatMs int64

	state      memberState
	memberID   string
	joinGen    int32 // generation named by the last JoinGroup answer
	generation int32 // generation of the assignment held; -1 for none
	leaderID   string
	protocol   string
	owned      []assign.TopicPartition // held now
	assigned   []assign.TopicPartition // the last assignment received (sticky's user data)
	joinAnswer []kmsg.JoinGroupResponseMember

	joinCorr, syncCorr, hbCorr int32 // requests in flight; 0 for none
	hbSentAt, lastHBOK         int64
	retryAt                    int64
	retry                      func(*World)

	positions map[assign.TopicPartition]int64
	polling   bool

	// the leader's partition counts at its last assignment, and its
	// metadata refresh (group_triggers.go)
	assignedCounts   map[string]int32
	metadataAt       int64
	refreshCorr      int32
	metadataMaxAgeMs int64
}

type memberState int

const (
	memberJoining   memberState = iota // JoinGroup in flight, or waiting for the coordinator
	memberAssigning                    // the leader fetches metadata and assigns
	memberSyncing                      // SyncGroup in flight
	memberStable                       // assigned and heartbeating
	memberLeft                         // left the group, or closed
	memberFailed                       // a fatal error (FENCED_INSTANCE_ID, ...)
)

func (s memberState) String() string {
	return [...]string{"joining", "assigning", "syncing", "stable", "left", "failed"}[s]
}

const (
	retryBackoffMs   = 100   // retry.backoff.ms
	joinTimeoutLapse = 5000  // a JoinGroup waits rebalance.timeout.ms plus this
	requestTimeoutMs = 30000 // request.timeout.ms
)

func newMember(w *World, name, broker, groupID string, topics []string, a assign.Assignor, instance string, sessionMs, rebalanceMs, heartbeatMs int64) *member {
	m := &member{
		broker: broker, groupID: groupID, topics: topics, assignor: a, instance: instance,
		sessionMs: sessionMs, rebalanceMs: rebalanceMs, heartbeatMs: heartbeatMs,
		joinGen: -1, generation: -1, positions: map[assign.TopicPartition]int64{},
		metadataMaxAgeMs: metadataMaxAge,
	}
	m.init(w, name)
	m.findCoordinator(w)
	return m
}

// sendTo sends a request with its own timeout (0: request.timeout.ms).
func (m *member) sendTo(w *World, to string, req kmsg.Request, timeoutMs int64, onTimeout func(*World)) int32 {
	corr := m.send(w, to, req, onTimeout)
	m.inflight[corr].timeoutMs = timeoutMs
	return corr
}

// cancel forgets a request in flight: its answer, if any, is ignored.
func (m *member) cancel(corr int32) {
	if corr != 0 {
		delete(m.inflight, corr)
	}
}

func (m *member) later(w *World, f func(*World)) {
	m.retryAt, m.retry = w.now+retryBackoffMs, f
}

func (m *member) findCoordinator(w *World) {
	m.coord = ""
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.SetVersion(3)
	req.CoordinatorKey, req.CoordinatorType = m.groupID, 0
	m.send(w, m.broker, req, m.findCoordinator)
}

// explainCoordinator says why the coordinator is where it is.
func (m *member) explainCoordinator(w *World) {
	n, err := w.node(m.coord)
	if err != nil || !n.Up || n.Broker.Topic(group.Topic) == nil {
		w.notef(m.name, "note", "coordinator of group %s: %s", m.groupID, m.coord)
		return
	}
	parts := int32(len(n.Broker.Topic(group.Topic).Partitions))
	h := group.JavaStringHashCode(m.groupID)
	p := group.PartitionFor(m.groupID, parts)
	w.notef(m.name, "note", "coordinator is %s, leader of %s-%d: abs(%q.hashCode()=%d) %% %d = %d",
		m.coord, group.Topic, p, m.groupID, h, parts, p)
}

// coordinatorLost marks the coordinator unknown, as the Java client does
// when a request to it fails: what was in flight to it is abandoned, and
// the member looks it up again after retry.backoff.ms.
func (m *member) coordinatorLost(w *World, why string) {
	if m.coord == "" || m.state >= memberLeft {
		return
	}
	w.notef(m.name, "note", "%s: coordinator %s marked unknown", why, m.coord)
	//purity:unordered deletes only; order cannot matter
	for corr, o := range m.inflight {
		if o.to == m.coord {
			delete(m.inflight, corr)
		}
	}
	m.joinCorr, m.syncCorr, m.hbCorr = 0, 0, 0
	if m.state == memberAssigning || m.state == memberSyncing {
		m.state = memberJoining
	}
	m.coord = ""
	m.later(w, m.findCoordinator)
}

func (m *member) timedOut(w *World) { m.coordinatorLost(w, "no answer") }

// rejoin starts a new round: an eager member first revokes everything
// (onPartitionsRevoked); a cooperative one keeps what it owns (KIP-429).
func (m *member) rejoin(w *World, why string) {
	switch {
	case len(m.owned) == 0:
		w.notef(m.name, "note", "%s: rejoins", why)
	case assign.IsCooperative(m.assignor.Name()):
		w.notef(m.name, "note", "%s: rejoins and keeps consuming %s (cooperative, KIP-429)", why, tpList(m.owned))
	default:
		w.notef(m.name, "note", "%s: revokes %s and rejoins (eager: everything, every rebalance)", why, tpList(m.owned))
		m.drop(m.owned)
	}
	m.join(w)
}

// lose gives up everything at once after the coordinator forgot the
// member or its generation (onPartitionsLost): another member may already
// own those partitions.
func (m *member) lose(w *World, why string) {
	if len(m.owned) > 0 {
		w.notef(m.name, "note", "%s: lost %s", why, tpList(m.owned))
		m.drop(m.owned)
	}
	m.generation = -1
}

// drop removes partitions from what the member owns, with their positions.
func (m *member) drop(tps []assign.TopicPartition) {
	gone := slices.Clone(tps)
	m.owned = slices.DeleteFunc(m.owned, func(tp assign.TopicPartition) bool { return slices.Contains(gone, tp) })
	for _, tp := range gone {
		delete(m.positions, tp)
	}
}

func (m *member) join(w *World) {
	m.cancel(m.joinCorr)
	m.cancel(m.syncCorr)
	m.joinCorr, m.syncCorr = 0, 0
	m.state = memberJoining
	if m.coord == "" {
		return // joins once the coordinator is found
	}
	sub := assign.Member{Topics: m.topics, Generation: m.generation}
	switch name := m.assignor.Name(); {
	case assign.IsCooperative(name):
		sub.Owned = m.owned
	case name == "sticky":
		sub.Owned = m.assigned // StickyAssignorUserData: the last assignment
	}
	req := kmsg.NewPtrJoinGroupRequest()
	req.SetVersion(9)
	req.Group, req.MemberID, req.ProtocolType = m.groupID, m.memberID, "consumer"
	req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = int32(m.sessionMs), int32(m.rebalanceMs)
	if m.instance != "" {
		req.InstanceID = &m.instance
	}
	req.Protocols = []kmsg.JoinGroupRequestProtocol{{Name: m.assignor.Name(), Metadata: assign.EncodeSubscription(m.assignor.Name(), sub)}}
	m.joinCorr = m.sendTo(w, m.coord, req, m.rebalanceMs+joinTimeoutLapse, m.timedOut)
}

func (m *member) onJoin(w *World, r *kmsg.JoinGroupResponse) {
	m.joinCorr = 0
	switch r.ErrorCode {
	case 0:
		m.memberID, m.joinGen, m.leaderID = r.MemberID, r.Generation, r.LeaderID
		m.protocol = ""
		if r.Protocol != nil {
			m.protocol = *r.Protocol
		}
		m.hbSentAt, m.lastHBOK = w.now, w.now // heartbeats resume (KIP-62)
		if r.LeaderID == r.MemberID && r.SkipAssignment {
			w.notef(m.name, "note", "leader of generation %d, told to skip the assignment: the group keeps the one it has (KIP-814)", r.Generation)
			m.sync(w, nil)
			return
		}
		if r.LeaderID == r.MemberID {
			m.state, m.joinAnswer = memberAssigning, r.Members
			w.notef(m.name, "note", "leader of generation %d: fetches metadata to assign %d members", r.Generation, len(r.Members))
			m.metadata(w)
			return
		}
		m.sync(w, nil)
	case kerr.MemberIDRequired.Code:
		m.memberID = r.MemberID
		w.notef(m.name, "note", "joins again with member id %s (KIP-394)", m.memberID)
		m.join(w)
	case kerr.UnknownMemberID.Code:
		m.lose(w, "UNKNOWN_MEMBER_ID")
		m.memberID = ""
		m.join(w)
	case kerr.IllegalGeneration.Code:
		m.lose(w, "ILLEGAL_GENERATION")
		m.join(w)
	case kerr.RebalanceInProgress.Code:
		m.join(w)
	case kerr.NotCoordinator.Code, kerr.CoordinatorNotAvailable.Code, kerr.CoordinatorLoadInProgress.Code:
		m.coordinatorLost(w, describe.ErrorName(r.ErrorCode))
	default:
		m.fail(w, "JoinGroup", r.ErrorCode)
	}
}

// fail stops the member on an error the client cannot recover from.
func (m *member) fail(w *World, api string, code int16) {
	w.notef(m.name, "error", "%s: %s: the consumer stops", api, describe.ErrorName(code))
	m.state = memberFailed
	m.owned = nil
	clear(m.inflight)
	m.joinCorr, m.syncCorr, m.hbCorr = 0, 0, 0
}

// metadata asks for the partition counts of every topic the members
// subscribe to: the leader needs them to assign.
func (m *member) metadata(w *World) {
	topics := slices.Clone(m.topics)
	for _, jm := range m.joinAnswer {
		if s, err := assign.DecodeSubscription(m.protocol, jm.MemberID, "", jm.ProtocolMetadata); err == nil {
			topics = append(topics, s.Topics...)
		}
	}
	slices.Sort(topics)
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(7)
	for _, t := range slices.Compact(topics) {
		req.Topics = append(req.Topics, kmsg.MetadataRequestTopic{Topic: kmsg.StringPtr(t)})
	}
	gen := m.joinGen
	m.send(w, m.broker, req, func(w *World) {
		if m.state == memberAssigning && m.joinGen == gen {
			m.metadata(w)
		}
	})
}

func (m *member) onMetadata(w *World, r *kmsg.MetadataResponse) {
	if m.state != memberAssigning {
		return
	}
	counts := map[string]int32{}
	var names []string
	for _, t := range r.Topics {
		if t.ErrorCode == 0 && t.Topic != nil {
			counts[*t.Topic] = int32(len(t.Partitions))
			names = append(names, fmt.Sprintf("%s (%d partitions)", *t.Topic, len(t.Partitions)))
		}
	}
	a, ok := assign.ByName(m.protocol)
	if !ok {
		a = m.assignor
	}
	plan, result, err := assign.Lead(a, m.joinAnswer, counts)
	if err != nil {
		w.notef(m.name, "error", "cannot assign: %v", err)
		m.rejoin(w, "assignment failed")
		return
	}
	m.rememberCounts(w, counts)
	w.notef(m.name, "note", "%s assigns %s:", a.Name(), strings.Join(names, ", "))
	var withheld map[string][]assign.TopicPartition
	if assign.IsCooperative(a.Name()) {
		withheld = m.withheld(result)
	}
	for _, id := range result.Members() {
		line := fmt.Sprintf("  %s: %s", id, tpList(result[id]))
		if len(withheld[id]) > 0 {
			line += fmt.Sprintf(" (must first revoke %s)", tpList(withheld[id]))
		}
		w.notef(m.name, "note", "%s", line)
	}
	m.sync(w, plan)
}

// withheld lists, per member, what the cooperative round takes away from
// it: partitions it owns that go to another member once it has revoked
// them (KIP-429).
func (m *member) withheld(round assign.Assignment) map[string][]assign.TopicPartition {
	var ms []assign.Member
	for _, jm := range m.joinAnswer {
		inst := ""
		if jm.InstanceID != nil {
			inst = *jm.InstanceID
		}
		if s, err := assign.DecodeSubscription(m.protocol, jm.MemberID, inst, jm.ProtocolMetadata); err == nil {
			ms = append(ms, s)
		}
	}
	return assign.Revoked(ms, round)
}

func (m *member) sync(w *World, plan []kmsg.SyncGroupRequestGroupAssignment) {
	m.state = memberSyncing
	req := kmsg.NewPtrSyncGroupRequest()
	req.SetVersion(5)
	req.Group, req.Generation, req.MemberID = m.groupID, m.joinGen, m.memberID
	if m.instance != "" {
		req.InstanceID = &m.instance
	}
	req.ProtocolType, req.Protocol = kmsg.StringPtr("consumer"), kmsg.StringPtr(m.protocol)
	req.GroupAssignment = plan
	m.syncCorr = m.sendTo(w, m.coord, req, 0, m.timedOut)
}

func (m *member) onSync(w *World, r *kmsg.SyncGroupResponse) {
	m.syncCorr = 0
	switch r.ErrorCode {
	case 0:
	case kerr.RebalanceInProgress.Code:
		m.join(w)
		return
	case kerr.UnknownMemberID.Code:
		m.lose(w, "UNKNOWN_MEMBER_ID")
		m.memberID = ""
		m.join(w)
		return
	case kerr.IllegalGeneration.Code:
		m.lose(w, "ILLEGAL_GENERATION")
		m.join(w)
		return
	case kerr.NotCoordinator.Code, kerr.CoordinatorNotAvailable.Code, kerr.CoordinatorLoadInProgress.Code:
		m.coordinatorLost(w, describe.ErrorName(r.ErrorCode))
		return
	default:
		m.fail(w, "SyncGroup", r.ErrorCode)
		return
	}
	tps, err := assign.DecodeAssignment(r.MemberAssignment)
	if err != nil {
		w.notef(m.name, "error", "SyncGroup: %v", err)
		m.rejoin(w, "bad assignment")
		return
	}
	m.generation, m.assigned, m.state = m.joinGen, tps, memberStable
	m.hbSentAt, m.lastHBOK = w.now, w.now
	rec := w.ledger(m.groupID, m.generation, m.leaderID)
	rec.members[m.memberID] = tps
	if m.leaderID == m.memberID {
		rec.leader = m.memberID
	}
	if !assign.IsCooperative(m.assignor.Name()) {
		m.owned = slices.Clone(tps)
		return
	}
	var revoked, added []assign.TopicPartition
	for _, tp := range m.owned {
		if !slices.Contains(tps, tp) {
			revoked = append(revoked, tp)
		}
	}
	for _, tp := range tps {
		if !slices.Contains(m.owned, tp) {
			added = append(added, tp)
		}
	}
	m.drop(revoked)
	kept := slices.Clone(m.owned)
	m.owned = append(m.owned, added...)
	assign.SortPartitions(m.owned)
	switch {
	case len(revoked) > 0:
		w.notef(m.name, "note", "generation %d: keeps %s, revokes %s and rejoins at once so that they can move (KIP-429)", m.generation, tpList(kept), tpList(revoked))
		m.join(w)
	case len(added) == 0 && len(kept) == 0:
		w.notef(m.name, "note", "generation %d: owns nothing", m.generation)
	case len(added) == 0:
		w.notef(m.name, "note", "generation %d: keeps %s", m.generation, tpList(kept))
	case len(kept) == 0:
		w.notef(m.name, "note", "generation %d: gains %s", m.generation, tpList(added))
	default:
		w.notef(m.name, "note", "generation %d: keeps %s, gains %s", m.generation, tpList(kept), tpList(added))
	}
}

func (m *member) receive(w *World, msg *Message) {
	if m.take(msg) == nil {
		w.notef(m.name, "note", "ignored a late answer")
		return
	}
	switch r := msg.Resp.(type) {
	case *kmsg.FindCoordinatorResponse:
		if m.state >= memberLeft {
			return
		}
		if r.ErrorCode != 0 {
			w.notef(m.name, "note", "FindCoordinator: %s: retrying after retry.backoff.ms", describe.ErrorName(r.ErrorCode))
			m.later(w, m.findCoordinator)
			return
		}
		m.coord = fmt.Sprintf("b%d", r.NodeID)
		m.explainCoordinator(w)
		if m.state == memberStable {
			m.lastHBOK = w.now
			m.heartbeat(w)
			return
		}
		m.join(w)
	case *kmsg.JoinGroupResponse:
		m.onJoin(w, r)
	case *kmsg.SyncGroupResponse:
		m.onSync(w, r)
	case *kmsg.HeartbeatResponse:
		m.onHeartbeat(w, r)
	case *kmsg.MetadataResponse:
		if m.refreshCorr != 0 && msg.Corr == m.refreshCorr {
			m.onRefresh(w, r)
			return
		}
		m.onMetadata(w, r)
	default:
		m.receiveOps(w, msg.Resp) // group_ops.go
	}
}

// tpList renders partitions as the assignors do: T1[0 1 2] T2[3], or "-".
func tpList(tps []assign.TopicPartition) string {
	if len(tps) == 0 {
		return "-"
	}
	a := assign.Assignment{"": tps}
	return strings.TrimPrefix(a.String(), ": ")
}
