package broker

import (
	"errors"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/share"
	"github.com/gregor-kafka/gregor/core/store"
)

// Fetch v4-18. v4 is the first version with the last stable offset and
// aborted transactions (KIP-98); v13+ names topics by id (KIP-516).
// read_committed (isolation level 1) reads below the last stable offset
// and gets the aborted transactions overlapping what it read;
// read_uncommitted reads below the high watermark. From v7 a fetcher
// may keep its partitions in an incremental fetch session (KIP-227,
// fetch_session.go), resolved before the handler runs: it sees every
// partition of the session.
//
// A fetch that finds fewer than fetch.min.bytes waits as a pending
// operation until an append brings enough or max.wait.ms passes (Kafka's
// delayed fetch purgatory). It never sleeps.
//
// A request the driver marked ZeroCopy gets the batches a segment file
// can pin as pinned ranges, not bytes (fetch_pins.go), which the native
// server sends with sendfile; the memory store and TLS keep copying.
func init() {
	register(1, api{min: 4, max: 18, serve: handleFetch, resolve: resolveFetch, acl: fetchACL{}})
}

type pendingFetch struct {
	req      Request
	deadline int64
}

func handleFetch(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.FetchRequest)
	if id := fetchReplica(req); id >= 0 {
		b.recordFollowerFetch(req, id)
	}
	b.capFetch(r, req) // client_quotas.go
	resp, n, failed := b.readFetch(req, r.ZeroCopy)
	if failed || req.MaxWaitMillis <= 0 || n >= int(req.MinBytes) {
		return resp
	}
	b.unpin(resp) // fetch_pins.go: the answer that waits is read again
	b.fetches = append(b.fetches, &pendingFetch{req: *r, deadline: b.now + int64(req.MaxWaitMillis)})
	return nil
}

// readFetch builds a fetch response from what the logs hold now. n is the
// number of record bytes in it; failed is set when a partition had an
// error or is to be read from another replica (KIP-392), which answers
// the fetch at once. With zeroCopy the batches a segment file can pin
// stay there, held for the answer (fetch_pins.go).
func (b *Broker) readFetch(req *kmsg.FetchRequest, zeroCopy bool) (resp *kmsg.FetchResponse, n int, failed bool) {
	resp = req.ResponseKind().(*kmsg.FetchResponse)
	byID := req.Version >= 13
	budget := int(req.MaxBytes)
	if req.Version < 3 || budget <= 0 {
		budget = 1<<31 - 1
	}
	for _, rt := range req.Topics {
		t := b.lookup(rt.Topic, rt.TopicID)
		if byID {
			t = b.lookup("", rt.TopicID)
		}
		st := kmsg.NewFetchResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewFetchResponseTopicPartition()
			sp.Partition = rp.Partition
			// An empty, not null, record set: librdkafka rejects a -1 size.
			sp.RecordBatches = []byte{}
			p := t.partition(rp.Partition)
			switch {
			case p == nil && byID && t == nil && !b.knowsTopicID(rt.TopicID):
				sp.ErrorCode = kerr.UnknownTopicID.Code
			case p == nil || !b.leads(p) && !b.followerServes(p, req): // KIP-392 (follower_fetch.go)
				name := rt.Topic
				if it, ok := b.image.topicByID(rt.TopicID); byID && ok {
					name = it.name
				}
				sp.ErrorCode = b.routeError(name, rp.Partition)
			case b.leads(p) && b.redirect(p, req, &rp, &sp):
			default:
				limit := min(int(rp.PartitionMaxBytes), budget)
				got, span := b.readPartition(p, req.IsolationLevel, fetchReplica(req) >= 0, &rp, limit, n == 0, zeroCopy, &sp)
				if span != nil {
					b.pin(resp, len(resp.Topics), len(st.Partitions), span)
				}
				n += got
				budget -= got
			}
			failed = failed || sp.ErrorCode != 0 || sp.PreferredReadReplica >= 0
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, n, failed
}

// readPartition fills one partition's answer and returns the bytes read;
// with pin, batches pinned in their segment file come back as a Span in
// place of sp.RecordBatches. A follower (replica) reads up to the log
// end, not the high watermark.
func (b *Broker) readPartition(p *Partition, isolation int8, replica bool, rp *kmsg.FetchRequestTopicPartition, limit int, minOne, pin bool, sp *kmsg.FetchResponseTopicPartition) (int, store.Span) {
	sp.HighWatermark = p.HighWatermark
	sp.LastStableOffset = p.lastStableOffset()
	sp.LogStartOffset = p.log.StartOffset()
	if e := rp.CurrentLeaderEpoch; e >= 0 && e != p.LeaderEpoch {
		sp.ErrorCode = kerr.FencedLeaderEpoch.Code
		if e > p.LeaderEpoch {
			sp.ErrorCode = kerr.UnknownLeaderEpoch.Code
		}
		return 0, nil
	}
	upTo := p.HighWatermark
	if isolation == 1 {
		upTo = sp.LastStableOffset
	}
	if replica {
		upTo = p.log.EndOffset()
	}
	if p.offline {
		// Only what was synced (storage_failure.go), and only to
		// consumers: not to read_committed, whose aborted-transaction
		// index may be what failed to be written, nor to a follower or
		// one past the log end, which the cut after a failed sync
		// (cutToSynced) would send to truncate or reset its position to
		// a log that is not the partition's any more.
		if isolation == 1 || replica || rp.FetchOffset > p.log.EndOffset() {
			sp.ErrorCode = kerr.KafkaStorageError.Code
			return 0, nil
		}
		upTo = min(upTo, p.log.RecoveryPoint())
	}
	if rp.FetchOffset > p.log.EndOffset() || rp.FetchOffset < sp.LogStartOffset {
		sp.ErrorCode = kerr.OffsetOutOfRange.Code
		return 0, nil
	}
	if rp.FetchOffset >= upTo || limit <= 0 && !minOne {
		return 0, nil
	}
	e, err := p.log.ReadExtent(rp.FetchOffset, max(limit, 0), upTo, minOne, pin)
	if errors.Is(err, log.ErrOffsetOutOfRange) {
		sp.ErrorCode = kerr.OffsetOutOfRange.Code
		return 0, nil
	}
	if err != nil {
		b.cfg.Logf("read from %s failed: %v", p, err)
		sp.ErrorCode = kerr.KafkaStorageError.Code
		return 0, nil
	}
	if e.Len() > 0 {
		sp.RecordBatches = e.Bytes
		if e.Span != nil {
			sp.RecordBatches = []byte{}
		}
		if isolation == 1 {
			sp.AbortedTransactions = abortedIn(p, rp.FetchOffset, e.Next)
		}
	}
	return e.Len(), e.Span
}

// abortedIn lists the aborted transactions with data among the fetched
// batches, [from, upTo), from the .txnindex of the segments read
// (KIP-98): the consumer drops a listed producer's batches from
// FirstOffset on, up to its abort marker. A read_committed answer with
// data carries a list, maybe empty; read_uncommitted answers carry none
// (null), as in Kafka.
func abortedIn(p *Partition, from, upTo int64) []kmsg.FetchResponseTopicPartitionAbortedTransaction {
	out := []kmsg.FetchResponseTopicPartitionAbortedTransaction{}
	for _, a := range p.log.AbortedTxns(from, upTo) {
		t := kmsg.NewFetchResponseTopicPartitionAbortedTransaction()
		t.ProducerID, t.FirstOffset = a.ProducerID, a.FirstOffset
		out = append(out, t)
	}
	return out
}

// wakeFetches answers waiting fetches that now have enough data. p is the
// partition that changed, or nil when anything may have changed.
func (b *Broker) wakeFetches(p *Partition) {
	kept := b.fetches[:0]
	for _, f := range b.fetches {
		req := f.req.Msg.(*kmsg.FetchRequest)
		if p != nil && !fetchWatches(req, p) {
			kept = append(kept, f)
			continue
		}
		resp, n, failed := b.readFetch(req, f.req.ZeroCopy)
		if failed || n >= int(req.MinBytes) {
			b.reply(f.req, resp)
			continue
		}
		b.unpin(resp)
		kept = append(kept, f)
	}
	clear(b.fetches[len(kept):])
	b.fetches = kept
	if p == nil || p.Topic.Name != share.StateTopic {
		b.wakeShareFetches()
	}
}

// expireFetches answers waiting fetches whose max.wait.ms has passed.
func (b *Broker) expireFetches() {
	kept := b.fetches[:0]
	for _, f := range b.fetches {
		if f.deadline <= b.now {
			resp, _, _ := b.readFetch(f.req.Msg.(*kmsg.FetchRequest), f.req.ZeroCopy)
			b.reply(f.req, resp)
			continue
		}
		kept = append(kept, f)
	}
	clear(b.fetches[len(kept):])
	b.fetches = kept
	b.expireShareFetches()
}

func fetchWatches(req *kmsg.FetchRequest, p *Partition) bool {
	for _, rt := range req.Topics {
		if rt.Topic == p.Topic.Name || rt.TopicID == p.Topic.ID && req.Version >= 13 {
			for _, rp := range rt.Partitions {
				if rp.Partition == p.Index {
					return true
				}
			}
		}
	}
	return false
}

// fetchReplica is the replica id of a follower's fetch, or -1 for a
// consumer (ReplicaState from v15, KIP-903).
func fetchReplica(req *kmsg.FetchRequest) int32 {
	if req.Version >= 15 {
		if req.ReplicaState.ID >= 0 {
			return req.ReplicaState.ID
		}
		return -1
	}
	if req.ReplicaID >= 0 {
		return req.ReplicaID
	}
	return -1
}

// recordFollowerFetch notes each follower's fetch offset as its LEO, once
// per request, at the partitions this broker leads at the epoch the
// follower knows.
func (b *Broker) recordFollowerFetch(req *kmsg.FetchRequest, id int32) {
	for _, rt := range req.Topics {
		t := b.lookup(rt.Topic, rt.TopicID)
		if req.Version >= 13 {
			t = b.lookup("", rt.TopicID)
		}
		for _, rp := range rt.Partitions {
			if p := t.partition(rp.Partition); p != nil && p.lead != nil && rp.CurrentLeaderEpoch == p.LeaderEpoch {
				b.updateFollower(p, id, rp.FetchOffset)
			}
		}
	}
}

// DropConnection forgets pending operations of a closed connection; its
// share sessions close, so the records it held are released.
func (b *Broker) DropConnection(conn uint64) {
	b.fetches = slices.DeleteFunc(b.fetches, func(f *pendingFetch) bool { return f.req.Conn == conn })
	b.acks = slices.DeleteFunc(b.acks, func(a *pendingAcks) bool { return a.conn != nil && *a.conn == conn })
	b.shareFetches = slices.DeleteFunc(b.shareFetches, func(f *pendingShareFetch) bool { return f.req.Conn == conn })
	b.share.DropConnection(conn)
	if b.persistShare(nil) {
		b.wakeShareFetches()
	}
}

// fetchACL: a follower's Fetch needs CLUSTER_ACTION, else every partition
// is TOPIC_AUTHORIZATION_FAILED; a consumer's needs READ on each topic, a
// refused one answered alone.
type fetchACL struct{}

func (fetchACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.FetchRequest)
	if fetchReplica(q) >= 0 {
		if b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationClusterAction}) {
			return nil, nil
		}
		return answered(r, func(resp kmsg.Response) {
			for _, t := range q.Topics {
				addTopics(resp, t, kerr.TopicAuthorizationFailed)
			}
		}), nil
	}
	return partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationRead), addTopics)
}
