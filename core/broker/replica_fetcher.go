package broker

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// A follower fetches from each leader as Kafka's ReplicaFetcherThread does
// (num.replica.fetchers=1): one Fetch at a time per leader carries every
// partition this broker follows from it and may fetch now, in an
// incremental fetch session (KIP-227, the leader's side is
// fetch_session.go). So a follower of 10,000 partitions led by two
// brokers has two fetches in flight, not 10,000, and once caught up each
// carries only the partitions whose offsets moved.
//
// Invariants:
//   - A partition is fetched once OffsetForLeaderEpoch has answered for
//     its epoch (followState.truncated), outside its error backoff, and
//     while its log is online; the others are left out, and forgotten by
//     an incremental fetch.
//   - The session holds what the leader's session holds of each
//     partition: what the last delivered request named. An incremental
//     fetch names only the partitions whose offsets or epochs differ from
//     it; the answer names only the partitions with news, and a partition
//     it leaves out is unchanged.
//   - A request lost or refused (any top-level error) starts a new session
//     at the next fetch: a full fetch with epoch 0 naming the old session,
//     which closes it at the leader, or naming none after
//     FETCH_SESSION_ID_NOT_FOUND (Kafka's FetchSessionHandler).
//   - A leader this broker no longer follows any partition of loses its
//     fetcher and the session with it (retireIdleFetchers).
//   - Under a flush policy the next fetch waits for the syncs of what the
//     last one appended: its offsets tell the leader this replica has the
//     records, and the high watermark counts them (replica.go).

// fetcher is the follower's fetcher for one leader.
type fetcher struct {
	leader   int32
	inflight bool // a fetch, or the syncs of its answer, is under way
	session  replicaSession
}

// replicaSession is the follower's side of its fetch session with a
// leader.
type replicaSession struct {
	id    int32 // 0: none
	epoch int32 // the next request's; 0 opens a session
	holds map[topicPartition]fetchPosition
}

// fetchPosition is what a follower's fetch says of one partition.
type fetchPosition struct {
	offset, logStart         int64
	leaderEpoch, lastFetched int32
}

// fetching is a partition in a fetch, with the follower state it was
// sent under: an answer for an older state is dropped.
type fetching struct {
	p *Partition
	f *followState
}

// busy reports whether ft (nil: none yet) has a fetch under way.
func (ft *fetcher) busy() bool { return ft != nil && ft.inflight }

func (s *replicaSession) reset() { s.epoch, s.holds = 0, nil }

// replicate moves p's replication on: until the leader has said where
// p's epoch ends it asks that, then its leader's fetcher fetches it.
func (b *Broker) replicate(p *Partition) {
	if b.readyToFetch(p) {
		b.fetchFrom(p.follow.leader)
	}
}

// readyToFetch reports whether followed p may be fetched, once the leader
// has said where its epoch ends: until then it asks (askEpochEnd).
func (b *Broker) readyToFetch(p *Partition) bool {
	f := p.follow
	if f == nil || f.asking || p.offline {
		return false
	}
	if !f.truncated {
		b.askEpochEnd(p, f)
	}
	return f.truncated
}

// retireIdleFetchers drops the fetchers of leaders this broker follows
// no partition of, with their sessions, as Kafka's ReplicaManager shuts
// idle fetcher threads down after each metadata change: following that
// leader again starts with a full fetch, not an incremental one on a
// session the leader may have lost meanwhile.
func (b *Broker) retireIdleFetchers() {
	followed := map[int32]bool{}
	for _, p := range b.partitions() {
		if p.follow != nil && !p.offline && !p.deleted {
			followed[p.follow.leader] = true
		}
	}
	//purity:unordered deletes what no partition follows
	for id := range b.cl.fetchers {
		if !followed[id] {
			delete(b.cl.fetchers, id)
		}
	}
}

func (b *Broker) fetcherFor(leader int32) *fetcher {
	ft := b.cl.fetchers[leader]
	if ft == nil {
		ft = &fetcher{leader: leader}
		b.cl.fetchers[leader] = ft
	}
	return ft
}

// fetchable reports whether p may go in its leader's next fetch.
func fetchable(p *Partition, now int64) bool {
	f := p.follow
	return f != nil && f.truncated && !f.asking && now >= f.retryAt && !p.offline && !p.deleted
}

// fetchFrom sends the leader's fetcher's next fetch, unless one is under
// way or no partition may be fetched from it now.
func (b *Broker) fetchFrom(leader int32) {
	ft := b.fetcherFor(leader)
	if ft.inflight {
		return
	}
	sent := map[topicPartition]fetching{}
	for _, p := range b.partitions() {
		if fetchable(p, b.now) && p.follow.leader == leader {
			sent[topicPartition{p.Topic.Name, p.Index}] = fetching{p, p.follow}
		}
	}
	if len(sent) == 0 {
		return
	}
	req, want := b.replicaFetch(&ft.session, sent)
	ft.inflight = true
	b.sendWithin(leader, req, b.fetchTimeout(), func(r kmsg.Response) {
		b.fetched(ft, sent, want, r)
	})
}

// replicaFetch builds the fetch of the partitions sent: all of them when
// it opens a session, else those whose position differs from what the
// session holds, with the held ones not sent as forgotten.
func (b *Broker) replicaFetch(s *replicaSession, sent map[topicPartition]fetching) (*kmsg.FetchRequest, map[topicPartition]fetchPosition) {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(12)
	req.ReplicaID = b.cfg.NodeID
	req.MaxWaitMillis = int32(b.cfg.Settings.Int64("replica.fetch.wait.max.ms"))
	req.MinBytes = 1
	req.MaxBytes = int32(b.cfg.Settings.Int64("replica.fetch.response.max.bytes"))
	req.SessionID, req.SessionEpoch = s.id, s.epoch
	full := s.epoch == 0
	want := make(map[topicPartition]fetchPosition, len(sent))
	for _, k := range sortedPartitions(sent) {
		p, f := sent[k].p, sent[k].f
		at := fetchPosition{offset: p.log.EndOffset(), logStart: p.log.StartOffset(), leaderEpoch: f.epoch, lastFetched: p.epochs.latest()}
		want[k] = at
		if held, ok := s.holds[k]; ok && held == at && !full {
			continue
		}
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != k.topic {
			rt := kmsg.NewFetchRequestTopic()
			rt.Topic = k.topic
			req.Topics = append(req.Topics, rt)
		}
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.CurrentLeaderEpoch = k.partition, at.offset, at.leaderEpoch
		rp.LogStartOffset, rp.LastFetchedEpoch = at.logStart, at.lastFetched
		rp.PartitionMaxBytes = int32(b.cfg.Settings.Int64("replica.fetch.max.bytes"))
		rt := &req.Topics[len(req.Topics)-1]
		rt.Partitions = append(rt.Partitions, rp)
	}
	if !full {
		for _, k := range sortedPartitions(s.holds) {
			if _, ok := want[k]; ok {
				continue
			}
			if n := len(req.ForgottenTopics); n == 0 || req.ForgottenTopics[n-1].Topic != k.topic {
				ft := kmsg.NewFetchRequestForgottenTopic()
				ft.Topic = k.topic
				req.ForgottenTopics = append(req.ForgottenTopics, ft)
			}
			ft := &req.ForgottenTopics[len(req.ForgottenTopics)-1]
			ft.Partitions = append(ft.Partitions, k.partition)
		}
	}
	return req, want
}

// fetched takes the leader's answer to a fetcher's fetch: it appends what
// each partition returned and sends the next fetch, after the syncs the
// flush policy asks of the appends.
func (b *Broker) fetched(ft *fetcher, sent map[topicPartition]fetching, want map[topicPartition]fetchPosition, r kmsg.Response) {
	resp, _ := r.(*kmsg.FetchResponse)
	switch {
	case resp == nil: // timed out or the link broke: ask again, in a new session
		ft.session.reset()
	case resp.ErrorCode != 0:
		ft.session.reset()
		switch resp.ErrorCode {
		case kerr.FetchSessionIDNotFound.Code:
			// The leader lost the session: a full fetch opens a new one
			// at once, naming none.
			ft.session.id = 0
		case kerr.InvalidFetchSessionEpoch.Code:
			// The leader moved past the epoch: the full fetch closes
			// the session it names and opens a new one.
		default:
			//purity:unordered each partition's backoff is its own
			for _, s := range sent {
				b.backoff(s.p, s.f)
			}
		}
	default:
		// The session's epoch is still the request's: one fetch at a time.
		if s := &ft.session; s.epoch == 0 {
			s.id, s.holds, s.epoch = resp.SessionID, want, 0
			if s.id != 0 { // else the leader kept no session: full fetches
				s.epoch = 1
			}
		} else {
			s.epoch, s.holds = nextSessionEpoch(s.epoch), want
		}
		var syncs []ackWait
		for i := range resp.Topics {
			rt := &resp.Topics[i]
			for j := range rt.Partitions {
				sp := &rt.Partitions[j]
				s, ok := sent[topicPartition{rt.Topic, sp.Partition}]
				if !ok || s.p.follow != s.f || s.p.deleted || s.p.offline {
					continue
				}
				if b.fetchedPartition(s.p, s.f, sp) {
					syncs = append(syncs, ackWait{p: s.p, settle: func(int16) {}})
				}
			}
		}
		if len(syncs) > 0 {
			b.afterSyncs(syncs, func() {
				ft.inflight = false
				b.fetchFrom(ft.leader)
			})
			return
		}
	}
	ft.inflight = false
	b.fetchFrom(ft.leader)
}

// fetchedPartition takes one partition's part of a fetch answer and
// reports whether the flush policy wants what it appended synced before
// the next fetch.
func (b *Broker) fetchedPartition(p *Partition, f *followState, sp *kmsg.FetchResponseTopicPartition) bool {
	switch sp.ErrorCode {
	case 0:
		sync, err := b.appendAsFollower(p, sp)
		if err != nil {
			b.cfg.Logf("%s: replicating from b%d failed: %v", p, f.leader, err)
			f.truncated = false
			b.backoff(p, f)
			return false
		}
		return sync
	case kerr.OffsetOutOfRange.Code:
		if p.log.EndOffset() < sp.LogStartOffset {
			b.cfg.Logf("%s: leader's log starts at %d, past our end %d: starting over there", p, sp.LogStartOffset, p.log.EndOffset())
			if err := p.log.TruncateFullyAndStartAt(sp.LogStartOffset, b.now); err == nil {
				b.afterTruncate(p)
			}
			return false
		}
		f.truncated = false
		b.askEpochEnd(p, f)
	default:
		b.backoff(p, f)
	}
	return false
}

// sortedPartitions is m's keys by topic, then partition.
func sortedPartitions[V any](m map[topicPartition]V) []topicPartition {
	keys := make([]topicPartition, 0, len(m))
	//purity:unordered sorted below
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].topic != keys[j].topic {
			return keys[i].topic < keys[j].topic
		}
		return keys[i].partition < keys[j].partition
	})
	return keys
}
