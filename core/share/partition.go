package share

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// State is an in-flight record's state, numbered as Kafka's RecordState
// (and as __share_group_state stores it).
type State int8

const (
	Available    State = 0 // may be acquired
	Acquired     State = 1 // locked by one member until its lock expires
	Acknowledged State = 2 // accepted: done
	Archived     State = 4 // rejected, delivered too often, a gap or not deliverable: done
)

func (s State) String() string {
	switch s {
	case Available:
		return "available"
	case Acquired:
		return "acquired"
	case Acknowledged:
		return "acknowledged"
	}
	return "archived"
}

// Acknowledge types of ShareFetch and ShareAcknowledge batches (KIP-932).
const (
	AckGap     int8 = 0
	AckAccept  int8 = 1
	AckRelease int8 = 2
	AckReject  int8 = 3
	// AckRenew keeps a record acquired and extends its lock (KIP-1222,
	// ShareFetch and ShareAcknowledge v2 with IsRenewAck).
	AckRenew int8 = 4
)

// Record is the state of one offset of a share partition's window.
type Record struct {
	State State
	Count int16  // delivery count: how many times it was acquired
	Owner string // the member holding the lock, while Acquired
	Until int64  // when the lock expires, while Acquired
}

// Limits are the broker settings a share partition obeys.
type Limits struct {
	LockMs      int64 // group.share.record.lock.duration.ms
	MaxLocks    int   // group.share.partition.max.record.locks: the window's size
	MaxDelivery int16 // group.share.delivery.count.limit
}

// Span is a run of offsets the log holds from the window's end on: a
// batch's records, or a batch no member may be given (a control batch, an
// aborted transaction's batch under read_committed), which is archived.
type Span struct {
	First, Last int64
	Skip        bool
}

// Partition is a share partition (KIP-932): the window of in-flight
// records [Start, End) of one topic partition for one share group. Start
// is the share-partition start offset (SPSO): every offset before it is
// done. End is the share-partition end offset (SPEO) plus one: offsets
// from End on were never acquired.
//
// StateEpoch and LeaderEpoch are the share coordinator's fences: the
// state epoch moves when an admin resets or deletes the state, the
// leader epoch is the topic partition's when its leader last read or
// wrote the state; a write carrying an older one is refused.
type Partition struct {
	Start                   int64
	StateEpoch, LeaderEpoch int32
	recs                    []Record // recs[i] is offset Start+i
}

// NewPartition starts a share partition at offset start.
func NewPartition(start int64) *Partition { return &Partition{Start: start} }

// End is one past the last offset in the window.
func (p *Partition) End() int64 { return p.Start + int64(len(p.recs)) }

// Records is the window, offset Start first.
func (p *Partition) Records() []Record { return p.recs }

// Acquire locks up to most available records for member until now+LockMs:
// first released records inside the window, then new ones read from the
// log (more gives the spans from an offset on, at most n offsets wanted),
// as long as the window stays within MaxLocks. A record already delivered
// MaxDelivery times is archived instead. The answer lists the acquired
// ranges with their delivery counts, as ShareFetch sends them.
func (p *Partition) Acquire(member string, now int64, lim Limits, most int, more func(from int64, n int) []Span) []kmsg.ShareFetchResponseTopicPartitionAcquiredRecord {
	var out []kmsg.ShareFetchResponseTopicPartitionAcquiredRecord
	n := 0
	take := func(off int64, r *Record) {
		r.State, r.Owner, r.Until = Acquired, member, now+lim.LockMs
		r.Count++
		n++
		if k := len(out) - 1; k >= 0 && out[k].LastOffset == off-1 && out[k].DeliveryCount == r.Count {
			out[k].LastOffset = off
			return
		}
		out = append(out, kmsg.ShareFetchResponseTopicPartitionAcquiredRecord{FirstOffset: off, LastOffset: off, DeliveryCount: r.Count})
	}
	for i := range p.recs {
		if n >= most {
			break
		}
		if r := &p.recs[i]; r.State == Available {
			if r.Count >= lim.MaxDelivery {
				r.State = Archived
				continue
			}
			take(p.Start+int64(i), r)
		}
	}
	if room := lim.MaxLocks - len(p.recs); n < most && room > 0 {
		for _, s := range more(p.End(), min(room, most-n)) {
			if len(p.recs) == 0 && s.First > p.Start { // the log starts later (retention, compaction)
				p.Start = s.First
			}
			for off := p.End(); off <= s.Last && n < most && len(p.recs) < lim.MaxLocks; off++ {
				p.recs = append(p.recs, Record{})
				r := &p.recs[len(p.recs)-1]
				if off < s.First || s.Skip { // a gap (compacted away) or not deliverable
					r.State = Archived
					continue
				}
				take(off, r)
			}
		}
	}
	p.advance()
	return out
}

// release ends a record's lock: it becomes available again, or archived
// once it was delivered MaxDelivery times.
func (r *Record) release(lim Limits) {
	r.State, r.Owner, r.Until = Available, "", 0
	if r.Count >= lim.MaxDelivery {
		r.State = Archived
	}
}

// AckBatch is one acknowledgement batch: offsets First..Last, one type
// for all of them or one per offset.
type AckBatch struct {
	First, Last int64
	Types       []int8
}

// Ack applies a member's acknowledgement batches, all or none: every
// offset from the window's start on must be Acquired by member
// (INVALID_RECORD_STATE otherwise), batches must be ordered, well formed
// and within the window (INVALID_REQUEST). Offsets before Start are done
// already and ignored. Accept acknowledges, release makes the record
// available again (or archives it at the delivery limit), reject and gap
// archive it. Renew is allowed only when renewUntil is positive (the
// request said IsRenewAck): the record stays member's, locked until
// renewUntil. It returns the error code, 0 on success.
func (p *Partition) Ack(member string, batches []AckBatch, lim Limits, renewUntil int64) int16 {
	invalidRequest, invalidRecordState := kerr.InvalidRequest.Code, kerr.InvalidRecordState.Code
	prev := int64(-1)
	for _, b := range batches {
		if b.First > b.Last || b.First <= prev || len(b.Types) == 0 ||
			len(b.Types) > 1 && int64(len(b.Types)) != b.Last-b.First+1 || b.Last >= p.End() {
			return invalidRequest
		}
		for _, t := range b.Types {
			if t < AckGap || t > AckReject && (t != AckRenew || renewUntil <= 0) {
				return invalidRequest
			}
		}
		prev = b.Last
		for off := max(b.First, p.Start); off <= b.Last; off++ {
			if r := p.recs[off-p.Start]; r.State != Acquired || r.Owner != member {
				return invalidRecordState
			}
		}
	}
	for _, b := range batches {
		for off := max(b.First, p.Start); off <= b.Last; off++ {
			t := b.Types[0]
			if len(b.Types) > 1 {
				t = b.Types[off-b.First]
			}
			r := &p.recs[off-p.Start]
			switch t {
			case AckAccept:
				r.State, r.Owner, r.Until = Acknowledged, "", 0
			case AckRelease:
				r.release(lim)
			case AckRenew:
				r.Until = renewUntil
			default:
				r.State, r.Owner, r.Until = Archived, "", 0
			}
		}
	}
	p.advance()
	return 0
}

// Expire ends the locks that expired by now and lists the records whose
// lock ended, in offset order.
func (p *Partition) Expire(now int64, lim Limits) []Released {
	return p.releaseIf(lim, func(r *Record) bool { return r.Until <= now })
}

// ReleaseMember ends every lock member holds (it left, its session
// closed), and reports whether it held any.
func (p *Partition) ReleaseMember(member string, lim Limits) bool {
	return len(p.releaseIf(lim, func(r *Record) bool { return r.Owner == member })) > 0
}

// Released is a record whose lock ended: who held it, and its state now
// (available, or archived at the delivery limit).
type Released struct {
	Offset int64
	Owner  string
	State  State
	Count  int16
}

func (p *Partition) releaseIf(lim Limits, match func(*Record) bool) []Released {
	var out []Released
	for i := range p.recs {
		if r := &p.recs[i]; r.State == Acquired && match(r) {
			owner := r.Owner
			r.release(lim)
			out = append(out, Released{p.Start + int64(i), owner, r.State, r.Count})
		}
	}
	p.advance()
	return out
}

// NextDeadline is the earliest lock expiry; ok is false without locks.
func (p *Partition) NextDeadline() (at int64, ok bool) {
	for _, r := range p.recs {
		if r.State == Acquired && (!ok || r.Until < at) {
			at, ok = r.Until, true
		}
	}
	return at, ok
}

// advance moves Start past the records that are done.
func (p *Partition) advance() {
	i := 0
	for i < len(p.recs) && (p.recs[i].State == Acknowledged || p.recs[i].State == Archived) {
		i++
	}
	p.Start += int64(i)
	p.recs = append(p.recs[:0], p.recs[i:]...)
}
