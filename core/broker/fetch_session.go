package broker

import (
	"math"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// Incremental fetch sessions (KIP-227, Fetch v7+). A fetcher that reads
// many partitions sends them all once, in a full fetch with epoch 0; the
// broker keeps them as a session and answers with its id. Each later
// fetch names the session and the next epoch, and carries only the
// partitions whose fetch offset or limits changed (and, forgotten, those
// to drop); its answer carries only the partitions with news: records, an
// error, a moved high watermark or log start, a preferred read replica
// (KIP-392) or a diverging epoch. So an idle consumer of 10,000
// partitions sends and gets a few dozen bytes a poll, not 10,000 entries.
//
// Invariants:
//   - Epoch -1 is a fetch outside any session; it and epoch 0 close the
//     session they name. Epoch 0 opens a new one when the cache has a slot
//     or may evict (below); without one the answer's session id is 0 and
//     the fetcher goes on with full fetches.
//   - An incremental fetch on a session the broker does not have is
//     FETCH_SESSION_ID_NOT_FOUND; with another epoch than the session
//     expects INVALID_FETCH_SESSION_EPOCH, and the session stays; naming
//     topics by id (v13+, KIP-516) in a session opened by name, or the
//     other way round, FETCH_SESSION_TOPIC_ID_ERROR. Each answers with no
//     partitions and session id 0, as Kafka's SessionErrorContext.
//   - The session is resolved before the request is authorized
//     (api.resolve): the authorizer and the handler see every partition
//     of the session, so an ACL removed mid-session refuses its topic at
//     the next fetch, and a follower's offsets are recorded from them.
//   - What a session remembers of each partition's last answer (high
//     watermark, log start) changes only when an answer is delivered
//     (answerSession): a fetch that waits, or a throttled answer (empty),
//     leaves it. An error sets the remembered high watermark to -1, so the
//     partition is sent again once the error clears.
//   - A partition that returned records moves to the end of the session,
//     so that under a byte limit every partition's turn comes.
//   - The cache holds max.incremental.fetch.session.cache.slots sessions.
//     When it is full a new session evicts the least recently used one if
//     that was idle for over 120 s, else the lowest of (follower, size,
//     id) that is no longer new (over 120 s old; a consumer's session is
//     always evictable by a follower's) if the new one is not lower:
//     Kafka's FetchSessionCache.tryEvict. Sessions do not belong to a
//     connection and outlive it, as in Kafka.

// fetchSessionEvictionMs is how long a session must have been idle to be
// stale, and how old it must be to be evictable by a larger one (Kafka's
// MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS).
const fetchSessionEvictionMs = 120_000

type fetchSession struct {
	id       int32
	epoch    int32 // what the next incremental fetch must carry
	byID     bool  // topics named by id (Fetch v13+)
	follower bool  // privileged in eviction
	created  int64
	used     int64
	parts    []*sessionPart // in the order they are read
	index    map[sessionKey]*sessionPart
}

// sessionKey names a partition in a session: by topic name, or by topic
// id in a session of Fetch v13+.
type sessionKey struct {
	topic string
	id    [16]byte
	p     int32
}

type sessionPart struct {
	topic string                          // as the fetcher named it: empty in a v13+ session
	id    [16]byte                        // zero in a session of names
	req   kmsg.FetchRequestTopicPartition // the fetcher's last word on it
	// hw and logStart are what the last answer told of it; -1 none yet.
	hw, logStart int64
}

// sessionTurn is one request's part in a session: which session, the
// epoch the session has after it, and whether it was the full fetch that
// opened it.
type sessionTurn struct {
	s     *fetchSession
	epoch int32
	full  bool
}

func nextSessionEpoch(e int32) int32 {
	if e == math.MaxInt32 {
		return 1
	}
	return e + 1
}

func (s *fetchSession) keyOf(topic string, id [16]byte, p int32) sessionKey {
	if s.byID {
		return sessionKey{id: id, p: p}
	}
	return sessionKey{topic: topic, p: p}
}

// update applies an incremental (or the opening) request's partitions
// and forgotten ones (KIP-227's FetchSession.update).
func (s *fetchSession) update(req *kmsg.FetchRequest) {
	for _, rt := range req.Topics {
		for _, rp := range rt.Partitions {
			k := s.keyOf(rt.Topic, rt.TopicID, rp.Partition)
			if sp := s.index[k]; sp != nil {
				sp.req = rp
				continue
			}
			sp := &sessionPart{topic: rt.Topic, id: rt.TopicID, req: rp, hw: -1, logStart: -1}
			s.index[k] = sp
			s.parts = append(s.parts, sp)
		}
	}
	forgotten := false
	for _, ft := range req.ForgottenTopics {
		for _, p := range ft.Partitions {
			k := s.keyOf(ft.Topic, ft.TopicID, p)
			if s.index[k] != nil {
				delete(s.index, k)
				forgotten = true
			}
		}
	}
	if forgotten {
		kept := s.parts[:0]
		for _, sp := range s.parts {
			if s.index[s.keyOf(sp.topic, sp.id, sp.req.Partition)] == sp {
				kept = append(kept, sp)
			}
		}
		clear(s.parts[len(kept):])
		s.parts = kept
	}
}

// request is the session's partitions as one full request's topics,
// consecutive partitions of a topic under one entry.
func (s *fetchSession) request() []kmsg.FetchRequestTopic {
	var out []kmsg.FetchRequestTopic
	for _, sp := range s.parts {
		if n := len(out); n == 0 || out[n-1].Topic != sp.topic || out[n-1].TopicID != sp.id {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic, rt.TopicID = sp.topic, sp.id
			out = append(out, rt)
		}
		out[len(out)-1].Partitions = append(out[len(out)-1].Partitions, sp.req)
	}
	return out
}

// resolveFetch gives a Fetch its session (api.resolve): it closes the
// session a full fetch names, opens one for epoch 0, and turns an
// incremental fetch into the session's whole partition list. A non-nil
// answer is the session's error.
func resolveFetch(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.FetchRequest)
	if req.Version < 7 {
		return nil
	}
	if req.SessionEpoch <= 0 {
		if req.SessionID != 0 {
			b.removeSession(b.sessions[req.SessionID])
		}
		if req.SessionEpoch == 0 {
			if s := b.openSession(req); s != nil {
				r.session = &sessionTurn{s: s, full: true}
			}
		}
		return nil
	}
	s := b.sessions[req.SessionID]
	code := int16(0)
	switch {
	case s == nil:
		code = kerr.FetchSessionIDNotFound.Code
	case s.epoch != req.SessionEpoch:
		code = kerr.InvalidFetchSessionEpoch.Code
	case s.byID != (req.Version >= 13):
		code = kerr.FetchSessionTopicIDError.Code
	}
	if code != 0 {
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		resp.ErrorCode = code
		return resp
	}
	s.update(req)
	whole := *req
	whole.ForgottenTopics = nil
	if len(s.parts) == 0 { // everything forgotten: a sessionless answer to nothing
		b.removeSession(s)
		r.Msg = &whole
		return nil
	}
	s.used = b.now
	s.epoch = nextSessionEpoch(s.epoch)
	whole.Topics = s.request()
	r.Msg = &whole
	r.session = &sessionTurn{s: s, epoch: s.epoch}
	return nil
}

// openSession caches a new session of req's partitions, or returns nil
// when the cache is full and nothing may be evicted for it.
func (b *Broker) openSession(req *kmsg.FetchRequest) *fetchSession {
	slots := int(b.cfg.Settings.Int64("max.incremental.fetch.session.cache.slots"))
	s := &fetchSession{byID: req.Version >= 13, follower: fetchReplica(req) >= 0,
		created: b.now, used: b.now, epoch: 1, index: map[sessionKey]*sessionPart{}}
	s.update(req)
	if len(b.sessions) >= slots && !b.evictSession(s) {
		return nil
	}
	for s.id == 0 || b.sessions[s.id] != nil {
		s.id = b.cfg.Rand.Int32()
	}
	if b.sessions == nil {
		b.sessions = map[int32]*fetchSession{}
	}
	b.sessions[s.id] = s
	return s
}

// evictSession makes room for s, as Kafka's FetchSessionCache.tryEvict:
// the least recently used session if it is stale, else the least
// valuable evictable one if s is worth at least as much.
func (b *Broker) evictSession(s *fetchSession) bool {
	var lru, low *fetchSession
	//purity:unordered minima over total orders (ties broken by id)
	for _, o := range b.sessions {
		if lru == nil || o.used < lru.used || o.used == lru.used && o.id < lru.id {
			lru = o
		}
		old := b.now-o.created > fetchSessionEvictionMs
		if (old || s.follower && !o.follower) && (low == nil || sessionLess(o, low)) {
			low = o
		}
	}
	switch {
	case lru != nil && b.now-lru.used > fetchSessionEvictionMs:
		b.removeSession(lru)
	case low != nil && !sessionLess(s, low):
		b.removeSession(low)
	default:
		return false
	}
	return true
}

// sessionLess orders sessions by what evicting them costs: a consumer's
// before a follower's, then fewer partitions, then id. A new session
// compares with id 0.
func sessionLess(a, o *fetchSession) bool {
	if a.follower != o.follower {
		return !a.follower
	}
	if len(a.parts) != len(o.parts) {
		return len(a.parts) < len(o.parts)
	}
	return a.id < o.id
}

func (b *Broker) removeSession(s *fetchSession) {
	if s != nil {
		delete(b.sessions, s.id)
	}
}

// answerSession finishes a session's answer as it is delivered: the
// opening fetch's answer carries every partition and names the session;
// an incremental one keeps only the partitions with news. Both update
// what the session remembers (see the invariants above). ranged are the
// answer's pinned batches (fetch_pins.go), returned renumbered for the
// partitions kept; a partition with a pin has records.
func (b *Broker) answerSession(t *sessionTurn, resp *kmsg.FetchResponse, ranged []wire.Ranged) []wire.Ranged {
	s := t.s
	if resp.ErrorCode != 0 || t.full && b.sessions[s.id] != s { // an error; or evicted before its first answer
		return ranged
	}
	if !t.full && s.epoch != t.epoch { // a later fetch of the session overtook this one
		resp.ErrorCode, resp.SessionID, resp.Topics = kerr.InvalidFetchSessionEpoch.Code, s.id, nil
		Release(ranged)
		return nil
	}
	resp.SessionID = s.id
	if resp.Topics == nil && resp.ThrottleMillis > 0 { // throttled: nothing was told
		return ranged
	}
	pinned := make(map[[2]int]int, len(ranged)) // answer position to its index in ranged
	for i, r := range ranged {
		pinned[[2]int{r.Topic, r.Partition}] = i
	}
	var moved []*sessionPart
	kept := resp.Topics[:0]
	for ti, rt := range resp.Topics {
		parts := rt.Partitions[:0]
		for pi, rp := range rt.Partitions {
			sp := s.index[s.keyOf(rt.Topic, rt.TopicID, rp.Partition)]
			pin, hasPin := pinned[[2]int{ti, pi}]
			records := hasPin || len(rp.RecordBatches) > 0
			if sp == nil || sp.tell(&rp, records) || t.full {
				if hasPin {
					ranged[pin].Topic, ranged[pin].Partition = len(kept), len(parts)
				}
				parts = append(parts, rp)
			}
			if sp != nil && !t.full && records {
				moved = append(moved, sp)
			}
		}
		if len(parts) > 0 {
			rt.Partitions = parts
			kept = append(kept, rt)
		}
	}
	clear(resp.Topics[len(kept):])
	resp.Topics = kept
	s.moveToEnd(moved)
	return ranged
}

// tell records what an answer tells of the partition and reports whether
// the answer must carry it (KIP-227's CachedPartition.maybeUpdateResponseData).
func (sp *sessionPart) tell(rp *kmsg.FetchResponseTopicPartition, records bool) bool {
	news := records || rp.PreferredReadReplica >= 0 || rp.DivergingEpoch.Epoch >= 0
	if sp.hw != rp.HighWatermark {
		sp.hw, news = rp.HighWatermark, true
	}
	if sp.logStart != rp.LogStartOffset {
		sp.logStart, news = rp.LogStartOffset, true
	}
	if rp.ErrorCode != 0 {
		sp.hw, news = -1, true
	}
	return news
}

// moveToEnd puts the partitions that returned records behind the others,
// in the order they were read.
func (s *fetchSession) moveToEnd(moved []*sessionPart) {
	if len(moved) == 0 {
		return
	}
	last := make(map[*sessionPart]bool, len(moved))
	for _, sp := range moved {
		last[sp] = true
	}
	kept := s.parts[:0]
	for _, sp := range s.parts {
		if !last[sp] {
			kept = append(kept, sp)
		}
	}
	s.parts = append(kept, moved...)
}

// FetchSessions counts the cached fetch sessions and the partitions they
// hold (Kafka's NumIncrementalFetchSessions and
// NumIncrementalFetchPartitionsCached).
func (b *Broker) FetchSessions() (sessions, partitions int) {
	//purity:unordered a sum
	for _, s := range b.sessions {
		partitions += len(s.parts)
	}
	return len(b.sessions), partitions
}
