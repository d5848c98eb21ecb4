package sim

import (
	"github.com/gregor-kafka/gregor/core/describe"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// The member's heartbeat thread (KIP-62): heartbeats go every
// heartbeat.interval.ms from the JoinGroup answer on, independent of
// poll; session.timeout.ms without an answer marks the coordinator
// unknown. The answer carries the group's news: REBALANCE_IN_PROGRESS
// (rejoin), ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID (the partitions are
// lost: rejoin), FENCED_INSTANCE_ID (another process took this
// group.instance.id, KIP-345: stop).

// heartbeating reports whether the heartbeat thread runs: from the join
// answer (COMPLETING_REBALANCE) on, as in the Java client.
func (m *member) heartbeating() bool {
	return m.state == memberAssigning || m.state == memberSyncing || m.state == memberStable
}

func (m *member) heartbeat(w *World) {
	req := kmsg.NewPtrHeartbeatRequest()
	req.SetVersion(4)
	req.Group, req.Generation, req.MemberID = m.groupID, m.joinGen, m.memberID
	if m.instance != "" {
		req.InstanceID = &m.instance
	}
	m.hbSentAt = w.now
	m.hbCorr = m.sendTo(w, m.coord, req, 0, m.timedOut)
}

func (m *member) onHeartbeat(w *World, r *kmsg.HeartbeatResponse) {
	m.hbCorr, m.lastHBOK = 0, w.now
	if !m.heartbeating() {
		return
	}
	switch r.ErrorCode {
	case 0:
	case kerr.RebalanceInProgress.Code:
		if m.state == memberStable { // ignored while completing a rebalance
			m.rejoin(w, "REBALANCE_IN_PROGRESS")
		}
	case kerr.IllegalGeneration.Code:
		m.lose(w, "ILLEGAL_GENERATION")
		m.join(w)
	case kerr.UnknownMemberID.Code:
		m.lose(w, "UNKNOWN_MEMBER_ID")
		m.memberID = ""
		m.join(w)
	case kerr.NotCoordinator.Code, kerr.CoordinatorNotAvailable.Code, kerr.CoordinatorLoadInProgress.Code:
		m.coordinatorLost(w, describe.ErrorName(r.ErrorCode))
	default:
		m.fail(w, "Heartbeat", r.ErrorCode)
	}
}

func (m *member) deadline() (int64, bool) {
	at, ok := m.conn.deadline()
	take := func(t int64) {
		if !ok || t < at {
			at, ok = t, true
		}
	}
	if m.retryAt > 0 {
		take(m.retryAt)
	}
	if t, due := m.refreshDue(); due {
		take(t)
	}
	if m.heartbeating() && m.coord != "" {
		if m.hbCorr == 0 {
			take(m.hbSentAt + m.heartbeatMs)
		}
		take(m.lastHBOK + m.sessionMs)
	}
	return at, ok
}

func (m *member) tick(w *World) {
	m.expire(w)
	if m.retryAt > 0 && w.now >= m.retryAt {
		f := m.retry
		m.retryAt, m.retry = 0, nil
		f(w)
	}
	if !m.heartbeating() || m.coord == "" {
		return
	}
	if w.now >= m.lastHBOK+m.sessionMs {
		m.coordinatorLost(w, "no heartbeat answer within session.timeout.ms")
		return
	}
	if m.hbCorr == 0 && w.now >= m.hbSentAt+m.heartbeatMs {
		m.heartbeat(w)
	}
	if t, due := m.refreshDue(); due && w.now >= t {
		m.refresh(w)
	}
}
