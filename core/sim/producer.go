package sim

import (
	"fmt"
	"math/rand/v2"

	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/core/wire"
)

// producer is a teaching producer. It partitions keyed records as the Java
// client does, and behaves as the seeds describe for its settings:
//
//   - acks=0: fire and forget (at most once);
//   - acks=1/all with retries: resend on a lost answer (at least once —
//     a lost ack makes a duplicate);
//   - idempotent: a producer id and per-partition sequence numbers, so the
//     broker drops the duplicate a retry would make (exactly once per
//     partition, KIP-98).
type producer struct {
	conn
	broker     string
	acks       int16
	retries    int
	idempotent bool
	pid        int64
	epoch      int16
	seqs       map[string]int32        // next sequence per topic-partition
	partitions map[string]int32        // partition counts learned from Metadata
	learnedAt  map[string]int64        // when each count was learned
	waiting    []*pendingRecord        // records waiting for metadata or a producer id
	leaders    map[string]string       // partition leaders learned from Metadata (clusters)
	askedAt    map[string]int64        // when metadata was last asked per topic (clusters)
	retries_   []*retryBatch           // batches to resend once the leader is known
	txn        *txnClient              // transactional producers only (txn.go)
	batchSize  int                     // batch.size, for keyless records (sticky.go)
	sticky     map[string]*stickyState // each topic's sticky partition (sticky.go)
	stickyRand *rand.Rand              // its draws, seeded by the producer's name
	mutedUntil map[string]int64        // per broker, when a quota's throttle ends (KIP-219)
}

type pendingRecord struct {
	topic      string
	partition  int32 // -1: choose by key, or the sticky partition when key is nil
	key, value []byte
}

// blankProducer is a producer that knows nothing yet.
func blankProducer(to string, acks int16, retries int, idempotent bool) *producer {
	return &producer{broker: to, acks: acks, retries: retries, idempotent: idempotent, pid: -1, epoch: -1,
		seqs: map[string]int32{}, partitions: map[string]int32{}, learnedAt: map[string]int64{}, leaders: map[string]string{}, askedAt: map[string]int64{},
		batchSize: defaultBatchSize, sticky: map[string]*stickyState{}, mutedUntil: map[string]int64{}}
}

// metadataMaxAge is the Java client's metadata.max.age.ms: how long a
// producer trusts a topic's partition count before asking again.
const metadataMaxAge = 300000

func newProducer(w *World, name, to string, acks int16, retries int, idempotent bool) *producer {
	p := blankProducer(to, acks, retries, idempotent)
	p.init(w, name)
	if idempotent {
		p.initProducerID(w)
	}
	return p
}

func (p *producer) initProducerID(w *World) {
	req := kmsg.NewPtrInitProducerIDRequest()
	req.SetVersion(4)
	req.ProducerID, req.ProducerEpoch = -1, -1
	p.send(w, p.broker, req, func(w *World) { p.initProducerID(w) })
}

// produce queues a record and sends whatever can be sent.
func (p *producer) produce(w *World, r *pendingRecord) {
	p.waiting = append(p.waiting, r)
	p.flush(w)
}

func (p *producer) flush(w *World) {
	if p.idempotent && p.pid < 0 {
		return
	}
	var still []*pendingRecord
	asked := map[string]bool{}
	if w.cl != nil {
		var later []*retryBatch
		for _, rb := range p.retries_ {
			tp := fmt.Sprintf("%s-%d", rb.topic, rb.part)
			switch {
			case rb.at > w.now:
				later = append(later, rb)
			case p.leaders[tp] == "":
				if !asked[rb.topic] {
					asked[rb.topic] = true
					p.metadata(w, rb.topic)
				}
				later = append(later, rb)
			default:
				p.sendProduce(w, rb.topic, rb.part, rb.batch, rb.attempt)
			}
		}
		p.retries_ = later
	}
	for _, r := range p.waiting {
		n, known := p.partitions[r.topic]
		// In a cluster a client must know the partition's leader first,
		// even when it chose the partition itself.
		noLeader := w.cl != nil && r.partition >= 0 && p.leaders[fmt.Sprintf("%s-%d", r.topic, r.partition)] == ""
		if known && w.now-p.learnedAt[r.topic] >= metadataMaxAge {
			delete(p.partitions, r.topic)
			known = false
		}
		if !known && r.partition < 0 || noLeader {
			if !asked[r.topic] {
				asked[r.topic] = true
				p.metadata(w, r.topic)
			}
			still = append(still, r)
			continue
		}
		part := r.partition
		switch {
		case part < 0 && r.key == nil:
			part = p.stickyPartition(w, r.topic, n)
		case part < 0:
			part = PartitionForKey(r.key, n)
			w.notef(p.name, "note", "key %q: murmur2 %% %d partitions = partition %d", r.key, n, part)
		}
		if p.mutedUntil[p.target(r.topic, part)] > w.now {
			still = append(still, r) // the broker throttled this client
			continue
		}
		if p.txn != nil && !p.txn.ready(w, p, r.topic, part) {
			still = append(still, r) // waits for AddPartitionsToTxn
			continue
		}
		b := p.sendBatch(w, r, part)
		if r.partition < 0 && r.key == nil {
			p.stuck(r.topic, b)
		}
	}
	p.waiting = still
}

func (p *producer) metadata(w *World, topic string) {
	if w.cl != nil {
		// In a cluster the leader may be unknown for a while: ask at most
		// once per retry.backoff.ms.
		if at, ok := p.askedAt[topic]; ok && w.now-at < retryBackoff {
			return
		}
		p.askedAt[topic] = w.now
	}
	req := kmsg.NewPtrMetadataRequest()
	req.SetVersion(7)
	t := topic
	req.Topics = []kmsg.MetadataRequestTopic{{Topic: &t}}
	p.send(w, w.bootstrap(p.broker), req, nil)
}

// retryBatch is a batch a producer in a cluster resends after refreshing
// its metadata (retry.backoff.ms later).
type retryBatch struct {
	topic   string
	part    int32
	batch   []byte
	attempt int
	at      int64
}

// retryBackoff is the Java client's retry.backoff.ms.
const retryBackoff = 100

// target is the broker a produce for topic-part goes to.
func (p *producer) target(topic string, part int32) string {
	if l := p.leaders[fmt.Sprintf("%s-%d", topic, part)]; l != "" {
		return l
	}
	return p.broker
}

// retryLater forgets the partition's leader and resends the batch after
// the backoff, through fresh metadata (as the Java client does on
// NOT_LEADER_OR_FOLLOWER and timeouts).
func (p *producer) retryLater(w *World, topic string, part int32, batch []byte, attempt int) {
	if attempt > p.retries {
		w.notef(p.name, "note", "gave up on %s-%d after %d attempts: the record may be lost", topic, part, attempt)
		return
	}
	delete(p.leaders, fmt.Sprintf("%s-%d", topic, part))
	w.notef(p.name, "note", "retrying %s-%d (attempt %d) after refreshing metadata", topic, part, attempt+1)
	p.retries_ = append(p.retries_, &retryBatch{topic, part, batch, attempt + 1, w.now + retryBackoff})
}

func (p *producer) deadline() (int64, bool) {
	at, ok := p.conn.deadline()
	if p.txn != nil {
		if t, tok := p.txn.deadline(); tok && (!ok || t < at) {
			at, ok = t, true
		}
	}
	for _, rb := range p.retries_ {
		if !ok || rb.at < at {
			at, ok = rb.at, true
		}
	}
	//purity:unordered takes the earliest deadline
	for _, until := range p.mutedUntil {
		if len(p.waiting) > 0 && (!ok || until < at) {
			at, ok = until, true
		}
	}
	//purity:unordered takes the earliest deadline
	for _, asked := range p.askedAt {
		if len(p.retries_)+len(p.waiting) > 0 && (!ok || asked+retryBackoff < at) {
			at, ok = asked+retryBackoff, true
		}
	}
	return at, ok
}

// sendBatch builds a one-record batch and sends it; a retry resends the
// very same bytes, sequence number included.
func (p *producer) sendBatch(w *World, r *pendingRecord, part int32) record.Batch {
	h := record.NewBatchHeader(w.now)
	tp := fmt.Sprintf("%s-%d", r.topic, part)
	if p.idempotent {
		h.ProducerID, h.ProducerEpoch, h.BaseSequence = p.pid, p.epoch, p.seqs[tp]
		h.Transactional = p.txn != nil
		p.seqs[tp]++
	}
	b := record.NewBuilder(h)
	b.Add(r.key, r.value, 0)
	batch := b.Build()
	p.sendProduce(w, r.topic, part, batch, 1)
	return batch
}

func (p *producer) sendProduce(w *World, topic string, part int32, batch []byte, attempt int) {
	req := kmsg.NewPtrProduceRequest()
	req.SetVersion(9)
	req.Acks, req.TimeoutMillis = p.acks, 30000
	if p.txn != nil {
		req.TransactionID = &p.txn.id
		if p.txn.tv2 {
			req.SetVersion(12) // the leader adds the partition (KIP-890 part 2)
		}
	}
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = part, batch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	to := p.target(topic, part)
	if p.acks == 0 {
		w.net.send(&Message{From: p.name, To: to, Conn: p.id, Corr: p.nextCorr(), ClientID: p.name, Req: req, Due: w.now})
		w.emit(view.Event{Kind: "send", From: p.name, To: to, Msg: req})
		return
	}
	corr := p.send(w, to, req, func(w *World) {
		if w.cl != nil {
			p.retryLater(w, topic, part, batch, attempt)
			return
		}
		if attempt > p.retries {
			w.notef(p.name, "note", "gave up on %s-%d after %d attempts: the record may be lost", topic, part, attempt)
			return
		}
		w.notef(p.name, "note", "retrying %s-%d (attempt %d)", topic, part, attempt+1)
		p.sendProduce(w, topic, part, batch, attempt+1)
	})
	p.inflight[corr].attempt = attempt
}

func (p *producer) nextCorr() int32 { p.corr++; return p.corr }

func (p *producer) receive(w *World, m *Message) {
	o := p.take(m)
	if o == nil {
		w.notef(p.name, "note", "ignored a late answer")
		return
	}
	if ms := wire.Throttle(m.Resp); ms > 0 {
		// KIP-219: the client, not the broker, waits out a quota.
		p.mutedUntil[m.From] = w.now + int64(ms)
		w.notef(p.name, "note", "throttled by a quota: sends nothing to %s for %dms", m.From, ms)
	}
	if p.txn != nil && p.txn.receive(w, p, o.req, m.Resp) {
		return
	}
	switch resp := m.Resp.(type) {
	case *kmsg.InitProducerIDResponse:
		if resp.ErrorCode != 0 {
			w.notef(p.name, "error", "InitProducerId failed: %s", describe.ErrorName(resp.ErrorCode))
			return
		}
		p.pid, p.epoch = resp.ProducerID, resp.ProducerEpoch
		p.flush(w)
	case *kmsg.MetadataResponse:
		for _, t := range resp.Topics {
			if t.ErrorCode == 0 && t.Topic != nil {
				p.partitions[*t.Topic] = int32(len(t.Partitions))
				p.learnedAt[*t.Topic] = w.now
				for _, mp := range t.Partitions {
					if mp.Leader >= 0 && w.cl != nil {
						p.leaders[fmt.Sprintf("%s-%d", *t.Topic, mp.Partition)] = fmt.Sprintf("b%d", mp.Leader)
					}
				}
			}
		}
		p.flush(w)
		if w.cl != nil && len(p.retries_) > 0 {
			for _, rb := range p.retries_ {
				rb.at = max(rb.at, w.now) // resend at the backoff's end
			}
		}
	case *kmsg.ProduceResponse:
		for _, t := range resp.Topics {
			for _, pr := range t.Partitions {
				switch {
				case pr.ErrorCode == 0:
					w.notef(p.name, "note", "acked %s-%d offset %d", t.Topic, pr.Partition, pr.BaseOffset)
				case kerr.IsRetriable(kerr.ErrorForCode(pr.ErrorCode)):
					w.notef(p.name, "note", "%s-%d: %s (retriable)", t.Topic, pr.Partition, describe.ErrorName(pr.ErrorCode))
					if req, ok := o.req.(*kmsg.ProduceRequest); ok && w.cl != nil {
						p.retryLater(w, t.Topic, pr.Partition, req.Topics[0].Partitions[0].Records, o.attempt)
					}
				default:
					w.notef(p.name, "error", "%s-%d: %s", t.Topic, pr.Partition, describe.ErrorName(pr.ErrorCode))
				}
			}
		}
		if p.txn != nil {
			p.txn.produced(w, p)
		}
	}
}

func (p *producer) tick(w *World) {
	p.expire(w)
	if p.txn != nil {
		p.txn.tick(w, p)
	}
	unmuted := false
	//purity:unordered deletes and sets a flag
	for b, until := range p.mutedUntil {
		if until <= w.now {
			delete(p.mutedUntil, b)
			unmuted = true
		}
	}
	if len(p.retries_) > 0 || (w.cl != nil || unmuted) && len(p.waiting) > 0 {
		p.flush(w)
	}
}
