package broker

import (
	"math"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// ShareFetch v1-2 and ShareAcknowledge v1-2 (KIP-932): a share group member
// acquires records of the partitions this broker leads, locked for
// the group's share.record.lock.duration.ms on the broker's clock, and
// acknowledges them, piggybacked on its next ShareFetch or alone. The
// session rules are core/share's (session.go). Records are read up to the
// high watermark, or the last stable offset under the group's share.isolation.level
// read_committed, where aborted transactions' batches and control batches
// are archived, never delivered. A share fetch that acquires nothing
// waits, as a long-poll Fetch does, until records arrive or are released
// or max.wait.ms passes.
//
// Version 2 (Kafka 4.2) adds renew acknowledgements (KIP-1222): a request
// with IsRenewAck may acknowledge with type 4, which keeps the records
// the member's and restarts their locks; such a ShareFetch fetches
// nothing, so its fetch limits must be 0. It also adds ShareAcquireMode
// (KIP-1206): Gregor acquires at most MaxRecords records in both modes,
// which record_limit (1) requires and batch_optimized (0) allows.
func init() {
	register(78, api{
		min: 1, max: 2, serve: handleShareFetch,
		acl: onGroupThenTopics{kmsg.ACLOperationRead},
	})
}

// renewUntil is when the locks a request renews end: the group's lock
// duration from now, or 0 when the request renews nothing (v1, or v2
// without IsRenewAck), so that type 4 is refused.
func (b *Broker) renewUntil(group string, renew bool) int64 {
	if !renew {
		return 0
	}
	return b.now + b.groupInt64(group, "share.record.lock.duration.ms")
}

// badRenewFetch reports a ShareFetch v2 that Kafka refuses with
// INVALID_REQUEST: an unknown acquire mode, or a renewal that also asks
// for records (fetch limits not 0, or a partition with nothing to
// acknowledge).
func badRenewFetch(req *kmsg.ShareFetchRequest) bool {
	if req.Version < 2 {
		return false
	}
	if req.ShareAcquireMode != 0 && req.ShareAcquireMode != 1 {
		return true
	}
	if !req.IsRenewAck {
		return false
	}
	if req.MaxBytes != 0 || req.MinBytes != 0 || req.MaxRecords != 0 || req.MaxWaitMillis != 0 {
		return true
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if len(p.AcknowledgementBatches) == 0 {
				return true
			}
		}
	}
	return false
}

type pendingShareFetch struct {
	req      Request
	deadline int64
	acks     map[share.TP]int16 // the acknowledgements' results, answered with the records
}

func shareIDs(group, member *string) (string, string) {
	var g, m string
	if group != nil {
		g = *group
	}
	if member != nil {
		m = *member
	}
	return g, m
}

func handleShareFetch(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ShareFetchRequest)
	resp := req.ResponseKind().(*kmsg.ShareFetchResponse)
	group, member := shareIDs(req.GroupID, req.MemberID)
	resp.AcquisitionLockTimeoutMillis = int32(b.groupInt64(group, "share.record.lock.duration.ms"))
	if group == "" || member == "" || len(member) > 36 || badRenewFetch(req) {
		resp.ErrorCode = kerr.InvalidRequest.Code
		return resp
	}
	tps, code := b.share.Session(group, member, r.Conn, req)
	if code != 0 {
		resp.ErrorCode = code
		return resp
	}
	acks := map[share.TP]int16{}
	until := b.renewUntil(group, req.IsRenewAck)
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			if len(p.AcknowledgementBatches) > 0 {
				tp := share.TP{TopicID: t.TopicID, Partition: p.Partition}
				acks[tp] = b.shareAck(group, member, tp, ackBatches(p.AcknowledgementBatches), until)
			}
		}
	}
	b.share.Next(group, member, req.ShareSessionEpoch)
	if req.ShareSessionEpoch == share.FinalEpoch || req.IsRenewAck {
		b.replyShareFetch(*r, group, b.shareFetchResponse(req, nil, acks))
		b.wakeShareFetches()
		return nil
	}
	resp2, n := b.acquire(req, group, member, tps, acks)
	if n > 0 || req.MaxWaitMillis <= 0 {
		b.replyShareFetch(*r, group, resp2)
		b.wakeShareFetches()
		return nil
	}
	f := &pendingShareFetch{req: *r, deadline: b.now + int64(req.MaxWaitMillis), acks: acks}
	b.shareFetches = append(b.shareFetches, f)
	// The acknowledgements are written now; a failed one is answered so.
	b.persistShare(func(failed map[share.Key]int16) {
		//purity:unordered updates each entry from its own key only
		for tp, code := range acks {
			if c := failed[share.Key{Group: group, TopicID: tp.TopicID, Partition: tp.Partition}]; c != 0 && code == 0 {
				acks[tp] = c
			}
		}
	})
	b.wakeShareFetches()
	return nil
}

// replyShareFetch answers a share fetch once the state it changed is
// written: a share partition whose write failed reports the error for
// its acknowledgements and gives none of the records it acquired.
func (b *Broker) replyShareFetch(r Request, group string, resp *kmsg.ShareFetchResponse) {
	b.persistShare(func(failed map[share.Key]int16) {
		for i := range resp.Topics {
			t := &resp.Topics[i]
			for j := range t.Partitions {
				p := &t.Partitions[j]
				code := failed[share.Key{Group: group, TopicID: t.TopicID, Partition: p.Partition}]
				if code == 0 {
					continue
				}
				if p.AcknowledgeErrorCode == 0 {
					p.AcknowledgeErrorCode = code
				}
				p.AcquiredRecords, p.Records = nil, []byte{}
			}
		}
		b.reply(r, resp)
	})
}

// ackBatches are a ShareFetch partition's acknowledgement batches.
func ackBatches(as []kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch) []share.AckBatch {
	bs := make([]share.AckBatch, len(as))
	for i, a := range as {
		bs[i] = share.AckBatch{First: a.FirstOffset, Last: a.LastOffset, Types: a.AcknowledgeTypes}
	}
	return bs
}

// sharePartition is the partition a share request names, or the error
// code for it: UNKNOWN_TOPIC_OR_PARTITION for a partition the topic does
// not have, NOT_LEADER_OR_FOLLOWER for one this broker does not lead.
func (b *Broker) sharePartition(tp share.TP) (*Partition, int16) {
	t := b.lookup("", tp.TopicID)
	p := t.partition(tp.Partition)
	it, known := b.image.topicByID(tp.TopicID)
	switch {
	case t == nil && !known:
		return nil, kerr.UnknownTopicID.Code
	case p == nil && (tp.Partition < 0 || int(tp.Partition) >= it.partitions):
		return nil, kerr.UnknownTopicOrPartition.Code
	case p == nil || !b.leads(p):
		return nil, kerr.NotLeaderForPartition.Code
	}
	return p, 0
}

func (b *Broker) shareAck(group, member string, tp share.TP, bs []share.AckBatch, renewUntil int64) int16 {
	if _, code := b.sharePartition(tp); code != 0 {
		return code
	}
	return b.share.Ack(share.Key{Group: group, TopicID: tp.TopicID, Partition: tp.Partition}, member, bs, renewUntil)
}

// acquire acquires records of the session's partitions for member, up
// to the request's MaxRecords (500 when unset) and MaxBytes in all, and
// returns the answer and how many records it carries. MaxBytes is a soft
// limit, as for Fetch (KIP-74): new records are read batch by batch
// until it is reached, and the answer's first batch comes whatever its
// size; partitions after that carry none. MaxBytes 0 acquires nothing.
func (b *Broker) acquire(req *kmsg.ShareFetchRequest, group, member string, tps []share.TP, acks map[share.TP]int16) (*kmsg.ShareFetchResponse, int) {
	left := int(req.MaxRecords)
	if left <= 0 {
		left = 500
	}
	budget := int(req.MaxBytes) // 0: acknowledge only, acquire nothing
	if budget < 0 {
		budget = math.MaxInt
	}
	got := map[share.TP]*kmsg.ShareFetchResponseTopicPartition{}
	n := 0
	for _, tp := range tps {
		sp := newShareFetchPartition(tp)
		got[tp] = sp
		p, code := b.sharePartition(tp)
		if sp.ErrorCode = code; code != 0 || left == 0 || budget <= 0 {
			continue
		}
		k := share.Key{Group: group, TopicID: tp.TopicID, Partition: tp.Partition}
		if !b.shareLoad(k, p) {
			continue
		}
		readCommitted := b.groupValue(group, "share.isolation.level") == "read_committed"
		upTo := p.HighWatermark
		if readCommitted {
			upTo = p.lastStableOffset()
		}
		lim := b.share.Limits()
		lim.LockMs = b.groupInt64(group, "share.record.lock.duration.ms")
		ranges := b.share.Partition(k).Acquire(member, b.now, lim, left, func(from int64, want int) []share.Span {
			return b.shareSpans(p, from, want, upTo, readCommitted, budget, n == 0)
		})
		if len(ranges) == 0 {
			continue
		}
		b.share.Touch(k)
		for _, a := range ranges {
			left -= int(a.LastOffset - a.FirstOffset + 1)
			n += int(a.LastOffset - a.FirstOffset + 1)
		}
		sp.AcquiredRecords = ranges
		if data := b.shareRead(p, ranges[0].FirstOffset, ranges[len(ranges)-1].LastOffset, upTo); data != nil {
			sp.Records = data
			budget -= len(data)
		}
	}
	return b.shareFetchResponse(req, got, acks), n
}

// newShareFetchPartition is tp's part of a ShareFetch answer, with no
// records yet. Records is empty, not null, as Kafka sends it
// (MemoryRecords.EMPTY): the field is nullable, but librdkafka drops a
// whole response that holds a null one ("invalid MessageSetSize -1"), and
// with it the acknowledgement results it carried.
func newShareFetchPartition(tp share.TP) *kmsg.ShareFetchResponseTopicPartition {
	sp := kmsg.NewShareFetchResponseTopicPartition()
	sp.Partition = tp.Partition
	sp.CurrentLeader.LeaderID, sp.CurrentLeader.LeaderEpoch = -1, -1
	sp.Records = []byte{}
	return &sp
}

// shareFetchResponse lists every partition of the answer (acquired, in
// error, or with acknowledgement results) by topic, in the order given.
func (b *Broker) shareFetchResponse(req *kmsg.ShareFetchRequest, got map[share.TP]*kmsg.ShareFetchResponseTopicPartition, acks map[share.TP]int16) *kmsg.ShareFetchResponse {
	resp := req.ResponseKind().(*kmsg.ShareFetchResponse)
	group, _ := shareIDs(req.GroupID, req.MemberID)
	resp.AcquisitionLockTimeoutMillis = int32(b.groupInt64(group, "share.record.lock.duration.ms"))
	//purity:unordered fills a map by key; its keys are sorted below
	for tp, code := range acks {
		if got[tp] == nil {
			if got == nil {
				got = map[share.TP]*kmsg.ShareFetchResponseTopicPartition{}
			}
			got[tp] = newShareFetchPartition(tp)
		}
		got[tp].AcknowledgeErrorCode = code
	}
	tps := make([]share.TP, 0, len(got))
	for tp := range got {
		tps = append(tps, tp)
	}
	share.SortTPs(tps)
	byTopic := map[[16]byte]int{}
	for _, tp := range tps {
		i, ok := byTopic[tp.TopicID]
		if !ok {
			i = len(resp.Topics)
			byTopic[tp.TopicID] = i
			resp.Topics = append(resp.Topics, kmsg.ShareFetchResponseTopic{TopicID: tp.TopicID})
		}
		resp.Topics[i].Partitions = append(resp.Topics[i].Partitions, *got[tp])
	}
	return resp
}

// shareSpans reads the batches from offset from on, up to upTo, until
// want offsets are covered or maxBytes of batches are read (at least one
// batch when first: the answer has none yet): a control batch, or an
// aborted transaction's batch under read_committed, is a span to archive.
func (b *Broker) shareSpans(p *Partition, from int64, want int, upTo int64, readCommitted bool, maxBytes int, first bool) []share.Span {
	var out []share.Span
	from = max(from, p.log.StartOffset())
	var aborted []abortedRange
	if readCommitted {
		for _, a := range p.log.AbortedTxns(from, upTo) {
			aborted = append(aborted, abortedRange{a.ProducerID, a.FirstOffset, a.LastOffset})
		}
	}
	read := 0
	for covered := 0; covered < want && from < upTo && read < maxBytes; {
		data, err := p.log.Read(from, 1<<20, upTo, true)
		if err != nil || len(data) == 0 {
			break
		}
		it := record.NewIter(data)
		for bt, ok := it.Next(); ok && covered < want; bt, ok = it.Next() {
			if read+bt.Size() > maxBytes && (read > 0 || !first) {
				return out
			}
			read += bt.Size()
			skip := bt.IsControl() || bt.IsTransactional() && inAborted(aborted, bt.ProducerID(), bt.BaseOffset())
			out = append(out, share.Span{First: bt.BaseOffset(), Last: bt.LastOffset(), Skip: skip})
			covered += int(bt.LastOffset() - max(bt.BaseOffset(), from) + 1)
			from = bt.LastOffset() + 1
		}
	}
	return out
}

type abortedRange struct{ pid, first, last int64 }

func inAborted(as []abortedRange, pid, offset int64) bool {
	for _, a := range as {
		if a.pid == pid && a.first <= offset && offset <= a.last {
			return true
		}
	}
	return false
}

// shareRead reads the whole batches holding offsets first..last, all
// below upTo, and no batch after them: a batch the member did not
// acquire is not sent (Kafka slices the records it read to the acquired
// ones), so MaxBytes bounds the answer.
func (b *Broker) shareRead(p *Partition, first, last, upTo int64) []byte {
	var out []byte
	for from := first; from <= last; {
		data, err := p.log.Read(from, 1<<20, upTo, true)
		if err != nil || len(data) == 0 {
			break
		}
		it := record.NewIter(data)
		for bt, ok := it.Next(); ok && from <= last; bt, ok = it.Next() {
			out = append(out, bt...)
			from = bt.LastOffset() + 1
		}
	}
	return out
}

// wakeShareFetches answers the waiting share fetches that can now acquire
// records.
func (b *Broker) wakeShareFetches() {
	if b.wakingShare || len(b.shareFetches) == 0 {
		return
	}
	b.wakingShare = true
	defer func() { b.wakingShare = false }()
	b.answerShareFetches(false)
}

// expireShareFetches answers the waiting share fetches whose
// max.wait.ms has passed.
func (b *Broker) expireShareFetches() { b.answerShareFetches(true) }

func (b *Broker) answerShareFetches(expiring bool) {
	var done []*pendingShareFetch
	kept := b.shareFetches[:0]
	for _, f := range b.shareFetches {
		if expiring && f.deadline > b.now {
			kept = append(kept, f)
			continue
		}
		req := f.req.Msg.(*kmsg.ShareFetchRequest)
		group, member := shareIDs(req.GroupID, req.MemberID)
		tps, ok := b.share.SessionPartitions(group, member)
		resp, n := b.acquire(req, group, member, tps, f.acks)
		if n == 0 && !expiring && ok {
			kept = append(kept, f)
			continue
		}
		done = append(done, f)
		b.replyShareFetch(f.req, group, resp)
	}
	clear(b.shareFetches[len(kept):])
	b.shareFetches = kept
}
