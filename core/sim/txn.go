package sim

import (
	"fmt"
	"sort"

	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnClient is the transactional half of a teaching producer, as the Java
// client's TransactionManager behaves (KIP-98, KIP-447):
//
//   - initTransactions: FindCoordinator for the transactional id, then
//     InitProducerId there, retried while the coordinator answers
//     CONCURRENT_TRANSACTIONS (it is finishing an older transaction);
//   - beginTransaction: local only, the coordinator hears of nothing;
//   - send: AddPartitionsToTxn before the first record to each partition,
//     then Produce with the transactional bit;
//   - sendOffsetsToTransaction: AddOffsetsToTxn, FindCoordinator for the
//     group, then TxnOffsetCommit to the group coordinator;
//   - commitTransaction / abortTransaction: EndTxn once every send and
//     offset commit is answered.
//
// With tv=2 it runs transaction version 2 (KIP-890 part 2), as a client
// does once the broker finalizes transaction.version=2: no
// AddPartitionsToTxn (Produce v12 adds the partition at its leader), no
// AddOffsetsToTxn (TxnOffsetCommit v5 adds the group's partition), and
// EndTxn v5, whose answer carries the bumped epoch the next transaction
// uses (its sequences start again at 0).
//
// When a coordinator answers NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE,
// or does not answer at all, the client looks it up again after
// retry.backoff.ms and sends the request there (the coordinator moved
// with the leadership of its internal partition).
type txnClient struct {
	id        string
	timeoutMs int32
	coord     string // the coordinator's broker, once found
	begun     bool
	added     map[string]bool // partitions in the transaction
	adding    map[string]bool // partitions in an AddPartitionsToTxn in flight
	offsets   *txnOffsets     // offsets being sent, if any
	groupCo   map[string]string
	end       *bool // commit (true) or abort (false) asked for
	ending    bool  // EndTxn in flight
	fenced    bool  // fatal: another instance took over
	tv2       bool  // transaction version 2 (KIP-890 part 2)
	abortable bool  // a send failed: the transaction can only abort
	// While the coordinator is looked up again: when to send
	// FindCoordinator, and what to send once it is found.
	lookupAt int64
	then     []func(*World)
	// retries are requests sent again after retry.backoff.ms (the
	// coordinator answered CONCURRENT_TRANSACTIONS: it is finishing an
	// earlier transaction).
	retries []delayed
}

type delayed struct {
	at int64
	f  func(*World)
}

// later sends a request again after retry.backoff.ms, as the Java client
// does after CONCURRENT_TRANSACTIONS.
func (t *txnClient) later(w *World, f func(*World)) {
	t.retries = append(t.retries, delayed{w.now + retryBackoff, f})
}

type txnOffsets struct {
	group   string
	offsets map[string]int64 // topic-partition → next offset to consume
	stage   int              // 0 AddOffsetsToTxn, 1 FindCoordinator, 2 TxnOffsetCommit
	findAt  int64            // when to send a FindCoordinator that waits for a backoff
}

func newTxnProducer(w *World, name, to, id string, timeoutMs int32, tv2 bool) *producer {
	p := blankProducer(to, -1, 5, true)
	p.txn = &txnClient{id: id, timeoutMs: timeoutMs, added: map[string]bool{}, adding: map[string]bool{}, groupCo: map[string]string{}, tv2: tv2}
	p.init(w, name)
	p.txn.then = []func(*World){func(w *World) { p.txn.initProducerID(w, p) }}
	p.txn.findCoordinator(w, p)
	return p
}

func (t *txnClient) findCoordinator(w *World, p *producer) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.SetVersion(3)
	req.CoordinatorKey, req.CoordinatorType = t.id, 1
	p.send(w, w.bootstrap(p.broker), req, func(w *World) { t.findCoordinator(w, p) })
}

// lookupAgain forgets the coordinator and, after retry.backoff.ms, finds
// it again and sends resend there.
func (t *txnClient) lookupAgain(w *World, p *producer, why string, resend func(*World)) {
	if t.lookupAt == 0 && t.coord != "" {
		w.notef(p.name, "note", "%s: looking up the transaction coordinator again", why)
	}
	t.coord = ""
	t.then = append(t.then, resend)
	if t.lookupAt == 0 {
		t.lookupAt = w.now + retryBackoff
	}
}

// tick sends the FindCoordinator requests that waited for a backoff.
func (t *txnClient) tick(w *World, p *producer) {
	if t.lookupAt > 0 && w.now >= t.lookupAt {
		t.lookupAt = -1 // asked
		t.findCoordinator(w, p)
	}
	if o := t.offsets; o != nil && o.findAt > 0 && w.now >= o.findAt {
		t.findGroupCoordinator(w, p, 0)
	}
	var due []func(*World)
	kept := t.retries[:0]
	for _, d := range t.retries {
		if d.at <= w.now {
			due = append(due, d.f)
		} else {
			kept = append(kept, d)
		}
	}
	t.retries = kept
	for _, f := range due {
		f(w)
	}
}

// deadline is when tick has work.
func (t *txnClient) deadline() (at int64, ok bool) {
	if t.lookupAt > 0 {
		at, ok = t.lookupAt, true
	}
	if o := t.offsets; o != nil && o.findAt > 0 && (!ok || o.findAt < at) {
		at, ok = o.findAt, true
	}
	for _, d := range t.retries {
		if !ok || d.at < at {
			at, ok = d.at, true
		}
	}
	return at, ok
}

// coordinatorMoved reports whether code says to look the coordinator up
// again.
func coordinatorMoved(code int16) bool {
	return code == kerr.NotCoordinator.Code || code == kerr.CoordinatorNotAvailable.Code
}

// toCoordinator sends a request to the transaction coordinator; when it
// is not answered the client looks the coordinator up again.
func (t *txnClient) toCoordinator(w *World, p *producer, req kmsg.Request, resend func(*World)) {
	if t.coord == "" {
		t.then = append(t.then, resend) // a lookup is under way
		return
	}
	p.send(w, t.coord, req, func(w *World) { t.lookupAgain(w, p, "no answer", resend) })
}

func (t *txnClient) initProducerID(w *World, p *producer) {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.SetVersion(4)
	req.TransactionalID, req.TransactionTimeoutMillis = &t.id, t.timeoutMs
	req.ProducerID, req.ProducerEpoch = -1, -1
	t.toCoordinator(w, p, req, func(w *World) { t.initProducerID(w, p) })
}

// ready reports whether a record for topic-part may be sent now; if the
// partition is not in the transaction yet it asks the coordinator.
func (t *txnClient) ready(w *World, p *producer, topic string, part int32) bool {
	tp := fmt.Sprintf("%s-%d", topic, part)
	if t.added[tp] || (t.tv2 && !t.fenced) {
		t.added[tp] = true // TV2: the Produce v12 adds it
		return true
	}
	if t.fenced {
		return false
	}
	if !t.adding[tp] {
		t.adding[tp] = true
		req := kmsg.NewPtrAddPartitionsToTxnRequest()
		req.SetVersion(3)
		req.TransactionalID, req.ProducerID, req.ProducerEpoch = t.id, p.pid, p.epoch
		req.Topics = []kmsg.AddPartitionsToTxnRequestTopic{{Topic: topic, Partitions: []int32{part}}}
		t.toCoordinator(w, p, req, func(w *World) {
			delete(t.adding, tp) // ask again
			p.flush(w)
		})
	}
	return false
}

// receive handles the coordinator answers; false leaves the message to
// the producer (Metadata, Produce).
func (t *txnClient) receive(w *World, p *producer, req kmsg.Request, resp kmsg.Response) bool {
	switch r := resp.(type) {
	case *kmsg.FindCoordinatorResponse:
		group := req.(*kmsg.FindCoordinatorRequest).CoordinatorType == 0
		if r.ErrorCode != 0 {
			w.notef(p.name, "error", "FindCoordinator failed: %s", describe.ErrorName(r.ErrorCode))
			switch {
			case group && t.offsets != nil:
				t.findGroupCoordinator(w, p, retryBackoff)
			case !group:
				t.lookupAt = w.now + retryBackoff
			}
			return true
		}
		if group {
			if t.offsets != nil && t.offsets.stage == 1 {
				t.groupCo[t.offsets.group] = fmt.Sprintf("b%d", r.NodeID)
				t.offsets.stage = 2
				t.txnOffsetCommit(w, p)
			}
			return true
		}
		t.coord, t.lookupAt = fmt.Sprintf("b%d", r.NodeID), 0
		then := t.then
		t.then = nil
		for _, f := range then {
			f(w)
		}
	case *kmsg.InitProducerIDResponse:
		switch r.ErrorCode {
		case 0:
			p.pid, p.epoch = r.ProducerID, r.ProducerEpoch
			w.notef(p.name, "note", "ready: transactional.id %s is pid=%d epoch=%d", t.id, p.pid, p.epoch)
			p.flush(w)
		case kerr.ConcurrentTransactions.Code, kerr.CoordinatorLoadInProgress.Code:
			w.notef(p.name, "note", "InitProducerId: %s (retriable): trying again after retry.backoff.ms", describe.ErrorName(r.ErrorCode))
			t.later(w, func(w *World) { t.initProducerID(w, p) })
		case kerr.NotCoordinator.Code, kerr.CoordinatorNotAvailable.Code:
			t.lookupAgain(w, p, "InitProducerId: "+describe.ErrorName(r.ErrorCode), func(w *World) { t.initProducerID(w, p) })
		default:
			w.notef(p.name, "error", "InitProducerId failed: %s", describe.ErrorName(r.ErrorCode))
		}
	case *kmsg.AddPartitionsToTxnResponse:
		for _, rt := range r.Topics {
			for _, rp := range rt.Partitions {
				tp := fmt.Sprintf("%s-%d", rt.Topic, rp.Partition)
				delete(t.adding, tp)
				if rp.ErrorCode == 0 {
					t.added[tp] = true
					continue
				}
				if coordinatorMoved(rp.ErrorCode) {
					t.lookupAgain(w, p, "AddPartitionsToTxn: "+describe.ErrorName(rp.ErrorCode), p.flush)
					continue
				}
				t.fail(w, p, "AddPartitionsToTxn", rp.ErrorCode)
				if !kerr.IsRetriable(kerr.ErrorForCode(rp.ErrorCode)) {
					t.dropWaiting(w, p, rt.Topic, rp.Partition)
				}
			}
		}
		p.flush(w)
		t.maybeEnd(w, p)
	case *kmsg.AddOffsetsToTxnResponse:
		if coordinatorMoved(r.ErrorCode) {
			t.lookupAgain(w, p, "AddOffsetsToTxn: "+describe.ErrorName(r.ErrorCode), func(w *World) { t.addOffsets(w, p) })
			return true
		}
		if r.ErrorCode != 0 {
			t.fail(w, p, "AddOffsetsToTxn", r.ErrorCode)
			t.offsets = nil
			t.maybeEnd(w, p)
			return true
		}
		if _, ok := t.groupCo[t.offsets.group]; ok {
			t.offsets.stage = 2
			t.txnOffsetCommit(w, p)
			return true
		}
		t.findGroupCoordinator(w, p, 0)
	case *kmsg.TxnOffsetCommitResponse:
		// As the Java client's TxnOffsetCommitHandler: a coordinator
		// error looks the group coordinator up again, another
		// retriable error (COORDINATOR_LOAD_IN_PROGRESS, ...) sends the
		// commit again to the same one after retry.backoff.ms.
		for _, rt := range r.Topics {
			for _, rp := range rt.Partitions {
				if (coordinatorMoved(rp.ErrorCode) || rp.ErrorCode == kerr.RequestTimedOut.Code) && t.offsets != nil {
					w.notef(p.name, "note", "TxnOffsetCommit: %s: looking up the group coordinator again", describe.ErrorName(rp.ErrorCode))
					delete(t.groupCo, t.offsets.group)
					t.findGroupCoordinator(w, p, retryBackoff)
					return true
				}
				if rp.ErrorCode != 0 && kerr.IsRetriable(kerr.ErrorForCode(rp.ErrorCode)) && t.offsets != nil {
					w.notef(p.name, "note", "TxnOffsetCommit: %s (retriable): trying again after retry.backoff.ms", describe.ErrorName(rp.ErrorCode))
					o := t.offsets
					t.later(w, func(w *World) {
						if t.offsets == o {
							t.txnOffsetCommit(w, p)
						}
					})
					return true
				}
				if rp.ErrorCode != 0 {
					t.fail(w, p, "TxnOffsetCommit", rp.ErrorCode)
				}
			}
		}
		t.offsets = nil
		t.maybeEnd(w, p)
	case *kmsg.EndTxnResponse:
		t.ending = false
		if r.ErrorCode == kerr.ConcurrentTransactions.Code {
			t.ending = true
			t.later(w, func(w *World) { t.sendEnd(w, p) })
			return true
		}
		if coordinatorMoved(r.ErrorCode) {
			t.ending = true
			t.lookupAgain(w, p, "EndTxn: "+describe.ErrorName(r.ErrorCode), func(w *World) { t.sendEnd(w, p) })
			return true
		}
		verb := map[bool]string{true: "committed", false: "aborted"}[*t.end]
		t.end, t.begun, t.abortable = nil, false, false
		t.added, t.adding = map[string]bool{}, map[string]bool{}
		if r.ErrorCode != 0 {
			t.fail(w, p, "EndTxn", r.ErrorCode)
			return true
		}
		if t.tv2 && r.ProducerID >= 0 {
			p.pid, p.epoch, p.seqs = r.ProducerID, r.ProducerEpoch, map[string]int32{}
			w.notef(p.name, "note", "transaction %s; the next one runs at pid=%d epoch=%d", verb, p.pid, p.epoch)
			return true
		}
		w.notef(p.name, "note", "transaction %s", verb)
	default:
		return false
	}
	return true
}

// dropWaiting fails the records waiting for a partition that could not
// join the transaction; the transaction can then only abort.
func (t *txnClient) dropWaiting(w *World, p *producer, topic string, part int32) {
	kept := p.waiting[:0]
	for _, r := range p.waiting {
		if r.topic == topic && r.partition == part {
			w.notef(p.name, "note", "record %q to %s-%d failed", r.value, topic, part)
			continue
		}
		kept = append(kept, r)
	}
	p.waiting = kept
	t.abortable = true
}

// fail reports a coordinator error; PRODUCER_FENCED is fatal, as in the
// Java client.
func (t *txnClient) fail(w *World, p *producer, api string, code int16) {
	if code == kerr.ProducerFenced.Code || code == kerr.InvalidProducerEpoch.Code {
		t.fenced = true
		w.notef(p.name, "error", "%s: %s: another instance with transactional.id %s took over; this producer must close", api, describe.ErrorName(code), t.id)
		return
	}
	w.notef(p.name, "error", "%s failed: %s", api, describe.ErrorName(code))
}

// produced runs after every Produce answer.
func (t *txnClient) produced(w *World, p *producer) { t.maybeEnd(w, p) }

// busy reports whether a send or offset commit is still unanswered.
func (t *txnClient) busy(p *producer) bool {
	return len(p.waiting) > 0 || len(t.adding) > 0 || t.offsets != nil || len(p.inflight) > 0 || len(p.retries_) > 0
}

func (t *txnClient) maybeEnd(w *World, p *producer) {
	if t.end != nil && !t.ending && !t.busy(p) {
		t.sendEnd(w, p)
	}
}

func (t *txnClient) sendEnd(w *World, p *producer) {
	t.ending = true
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(3)
	if t.tv2 {
		req.SetVersion(5)
	}
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = t.id, p.pid, p.epoch, *t.end
	t.toCoordinator(w, p, req, func(w *World) { t.sendEnd(w, p) }) // a retry of a done decision is answered NONE
}

// addOffsets asks the coordinator to put the group's __consumer_offsets
// partition in the transaction (AddOffsetsToTxn).
func (t *txnClient) addOffsets(w *World, p *producer) {
	if t.tv2 { // TxnOffsetCommit v5 adds the partition itself
		if _, ok := t.groupCo[t.offsets.group]; ok {
			t.offsets.stage = 2
			t.txnOffsetCommit(w, p)
			return
		}
		t.findGroupCoordinator(w, p, 0)
		return
	}
	req := kmsg.NewPtrAddOffsetsToTxnRequest()
	req.SetVersion(2)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Group = t.id, p.pid, p.epoch, t.offsets.group
	t.toCoordinator(w, p, req, func(w *World) { t.addOffsets(w, p) })
}

// findGroupCoordinator looks up the coordinator of the group whose
// offsets are being sent, after delayMs.
func (t *txnClient) findGroupCoordinator(w *World, p *producer, delayMs int64) {
	t.offsets.stage, t.offsets.findAt = 1, w.now+delayMs
	if delayMs > 0 {
		return // sent by tick
	}
	t.offsets.findAt = 0
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.SetVersion(3)
	req.CoordinatorKey, req.CoordinatorType = t.offsets.group, 0
	p.send(w, w.bootstrap(p.broker), req, func(w *World) { t.findGroupCoordinator(w, p, 0) })
}

func (t *txnClient) txnOffsetCommit(w *World, p *producer) {
	o := t.offsets
	req := kmsg.NewPtrTxnOffsetCommitRequest()
	req.SetVersion(3)
	if t.tv2 {
		req.SetVersion(5)
	}
	req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = t.id, o.group, p.pid, p.epoch
	req.Generation = -1
	tps := make([]string, 0, len(o.offsets))
	for tp := range o.offsets {
		tps = append(tps, tp)
	}
	sort.Strings(tps)
	for _, s := range tps {
		topic, part, _ := splitTP(s)
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != topic {
			req.Topics = append(req.Topics, kmsg.TxnOffsetCommitRequestTopic{Topic: topic})
		}
		rp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset = part, o.offsets[s]
		req.Topics[len(req.Topics)-1].Partitions = append(req.Topics[len(req.Topics)-1].Partitions, rp)
	}
	p.send(w, t.groupCo[o.group], req, func(w *World) {
		delete(t.groupCo, o.group) // no answer: look the group coordinator up again
		t.findGroupCoordinator(w, p, 0)
	})
}

// deadClient stands for a client process that was killed: it answers
// nothing and waits for nothing.
type deadClient struct{ name string }

func (d deadClient) receive(w *World, m *Message) {
	w.notef(d.name, "note", "(process gone) %s", describe.Message(m.body()))
}
func (deadClient) tick(*World)             {}
func (deadClient) deadline() (int64, bool) { return 0, false }
