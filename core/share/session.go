package share

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Share sessions (KIP-932): a member's ShareFetch with session epoch 0
// opens a session naming its partitions (and may not acknowledge: it
// holds nothing yet); each later request carries the next epoch and adds
// partitions or forgets them; epoch -1 (ShareFetch or ShareAcknowledge)
// closes it, and the member's locks on its partitions end. A session of
// a closed connection closes too.

type sessionKey struct{ group, member string }

// TP is a topic partition by topic id.
type TP struct {
	TopicID   [16]byte
	Partition int32
}

type session struct {
	epoch int32
	conn  uint64
	parts map[TP]bool
}

// FinalEpoch closes a share session.
const FinalEpoch = -1

// Session applies a ShareFetch's session epoch and partitions. It returns
// the session's partitions, in order, or an error code: epoch 0 with
// acknowledgements is INVALID_REQUEST, too many sessions
// SHARE_SESSION_LIMIT_REACHED, a missing session SHARE_SESSION_NOT_FOUND,
// a wrong epoch INVALID_SHARE_SESSION_EPOCH. The epoch moves on with
// Next once the request is served.
func (e *Engine) Session(group, member string, conn uint64, req *kmsg.ShareFetchRequest) ([]TP, int16) {
	k := sessionKey{group, member}
	s := e.sessions[k]
	switch {
	case req.ShareSessionEpoch == 0:
		for _, t := range req.Topics {
			for _, p := range t.Partitions {
				if len(p.AcknowledgementBatches) > 0 {
					return nil, kerr.InvalidRequest.Code
				}
			}
		}
		e.closeSession(k)
		if e.cfg.MaxSessions > 0 && len(e.sessions) >= e.cfg.MaxSessions {
			return nil, kerr.ShareSessionLimitReached.Code
		}
		s = &session{conn: conn, parts: map[TP]bool{}}
		e.sessions[k] = s
	case s == nil:
		return nil, kerr.ShareSessionNotFound.Code
	case req.ShareSessionEpoch != FinalEpoch && req.ShareSessionEpoch != s.epoch:
		return nil, kerr.InvalidShareSessionEpoch.Code
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			s.parts[TP{t.TopicID, p.Partition}] = true
		}
	}
	for _, f := range req.ForgottenTopicsData {
		for _, p := range f.Partitions {
			delete(s.parts, TP{f.TopicID, p})
		}
	}
	return sortedTPs(s.parts), 0
}

// CheckSession validates a ShareAcknowledge's session epoch: the session
// must exist, and the epoch be its current one or FinalEpoch.
func (e *Engine) CheckSession(group, member string, epoch int32) int16 {
	s := e.sessions[sessionKey{group, member}]
	switch {
	case epoch == 0:
		return kerr.InvalidShareSessionEpoch.Code
	case s == nil:
		return kerr.ShareSessionNotFound.Code
	case epoch != FinalEpoch && epoch != s.epoch:
		return kerr.InvalidShareSessionEpoch.Code
	}
	return 0
}

// Next moves a session to its next epoch, or closes it after a request
// with FinalEpoch.
func (e *Engine) Next(group, member string, epoch int32) {
	k := sessionKey{group, member}
	if epoch == FinalEpoch {
		e.closeSession(k)
		return
	}
	if s := e.sessions[k]; s != nil {
		s.epoch++
	}
}

// closeSession ends a session; the member's locks on its partitions end.
func (e *Engine) closeSession(k sessionKey) {
	s := e.sessions[k]
	if s == nil {
		return
	}
	delete(e.sessions, k)
	//purity:unordered each partition releases the member on its own
	for tp := range s.parts {
		pk := Key{k.group, tp.TopicID, tp.Partition}
		if p := e.parts[pk]; p != nil && p.ReleaseMember(k.member, e.cfg.Limits) {
			e.dirty[pk] = true
		}
	}
}

// DropConnection closes the sessions of a closed connection.
func (e *Engine) DropConnection(conn uint64) {
	//purity:unordered the order shows nowhere: locks end, keys are marked
	for k, s := range e.sessions {
		if s.conn == conn {
			e.closeSession(k)
		}
	}
}

// SessionPartitions lists a session's partitions; ok is false when the
// member has no session.
func (e *Engine) SessionPartitions(group, member string) ([]TP, bool) {
	s := e.sessions[sessionKey{group, member}]
	if s == nil {
		return nil, false
	}
	return sortedTPs(s.parts), true
}

func sortedTPs(m map[TP]bool) []TP {
	tps := make([]TP, 0, len(m))
	for tp := range m {
		tps = append(tps, tp)
	}
	SortTPs(tps)
	return tps
}

// SortTPs sorts by topic id, then partition.
func SortTPs(tps []TP) {
	sort.Slice(tps, func(i, j int) bool {
		a, b := tps[i], tps[j]
		return compareKeys(Key{TopicID: a.TopicID, Partition: a.Partition}, Key{TopicID: b.TopicID, Partition: b.Partition}) < 0
	})
}
