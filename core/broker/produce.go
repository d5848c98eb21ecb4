package broker

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/wire"
)

// Produce v3-13. v3 is the first version that carries v2 RecordBatches
// (KIP-98), which is all the log stores; v13 names topics by id (KIP-516).
// acks=0 gets no response; acks=1 and acks=-1 are answered once the batch is
// in the log and, when flush.messages/flush.ms ask for it, synced (group
// commit at the next Commit). acks=-1 is refused with NOT_ENOUGH_REPLICAS
// while the ISR is smaller than min.insync.replicas, and otherwise waits
// until the high watermark covers the batch: with one broker the ISR is
// the leader alone, so that is as soon as it has appended. In a cluster
// (replica.go) a partition is written only at its leader
// (NOT_LEADER_OR_FOLLOWER elsewhere).
//
// A batch with a producer id is checked against the partition's producer
// state first (KIP-98, see core/producer): a retry of one of the producer's
// last five batches is answered with the original base offset and not
// stored again; a sequence gap gets OUT_OF_ORDER_SEQUENCE_NUMBER, a stale
// epoch INVALID_PRODUCER_EPOCH (KIP-588), a plain batch inside an open
// transaction INVALID_TXN_STATE. A transactional batch opens the
// producer's transaction on the partition, which holds the last stable
// offset back until WriteTxnMarkers closes it.
func init() { register(0, api{min: 3, max: 13, serve: handleProduce, acl: produceACL{}}) }

func handleProduce(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ProduceRequest)
	if b.verifyRemotely(r, req) { // verify_txn.go
		return nil
	}
	resp := req.ResponseKind().(*kmsg.ProduceResponse)
	b.throttleProduce(r, resp) // client_quotas.go
	var syncs, waits []ackWait
	adds := b.collectWrites(func() { // the implicit adds' records (KIP-890 part 2)
		syncs, waits = b.produceTopics(r, resp)
	})
	syncs, waits = awaitImplicitAdds(resp, adds, syncs, waits)
	switch {
	case req.Acks == 0:
		return nil
	case len(waits) > 0:
		// acks=all to a partition with followers: the answer waits until
		// the high watermark passes the batches, i.e. every ISR member
		// has them.
		b.awaitISR(&r.Conn, waits, int64(max(req.TimeoutMillis, 0)), b.answer(*r, resp, syncs))
		return nil
	case len(syncs) > 0:
		// acks=1 or all under flush.messages/flush.ms: answered after the
		// next Commit's sync, with KAFKA_STORAGE_ERROR where it failed.
		b.answer(*r, resp, syncs)()
		return nil
	}
	return resp
}

// produceTopics appends the batches of r, filling resp. It returns the
// partitions to sync before the answer and, for acks=all to partitions
// with followers, the appends the ISR must have first.
func (b *Broker) produceTopics(r *Request, resp *kmsg.ProduceResponse) (syncs, waits []ackWait) {
	req := r.Msg.(*kmsg.ProduceRequest)
	byID := req.Version >= 13
	for ti, rt := range req.Topics {
		t := b.lookup(rt.Topic, rt.TopicID)
		if byID {
			t = b.lookup("", rt.TopicID)
		}
		name := rt.Topic
		if byID {
			if it, ok := b.image.topicByID(rt.TopicID); ok {
				name = it.name
			}
		}
		st := kmsg.NewProduceResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for pi, rp := range rt.Partitions {
			sp := kmsg.NewProduceResponseTopicPartition()
			sp.Partition = rp.Partition
			p := t.partition(rp.Partition)
			switch {
			case req.Acks != 0 && req.Acks != 1 && req.Acks != -1:
				sp.ErrorCode = kerr.InvalidRequiredAcks.Code
			case p == nil || !b.leads(p):
				sp.ErrorCode = b.routeError(name, rp.Partition)
				if byID && name == "" {
					sp.ErrorCode = kerr.UnknownTopicID.Code
				}
			case p.offline:
				// Its log failed (storage_failure.go); nothing more is
				// appended until a restart recovers it.
				sp.ErrorCode = kerr.KafkaStorageError.Code
			case isInternalTopic(p.Topic.Name):
				// Only the coordinators write their topics (Kafka's
				// ReplicaManager refuses "append to internal topic").
				sp.ErrorCode = kerr.InvalidTopicException.Code
			case req.Acks == -1 && len(p.ISR) < b.minISR(p):
				// Refused before appending: the ISR is too small to
				// promise acks=all durability.
				sp.ErrorCode = kerr.NotEnoughReplicas.Code
				msg := fmt.Sprintf("the ISR %v of %s is smaller than min.insync.replicas=%d", p.ISR, p, b.minISR(p))
				sp.ErrorMessage = &msg
			default:
				if b.produce(p, r, rp.Records, &sp) {
					syncs = append(syncs, ackWait{p: p, settle: func(code int16) {
						rsp := &resp.Topics[ti].Partitions[pi]
						rsp.ErrorCode, rsp.BaseOffset, rsp.LogAppendTime = code, -1, -1
					}})
				}
				if req.Acks == -1 && sp.ErrorCode == 0 && p.lead != nil {
					need := sp.BaseOffset + int64(record.Batch(rp.Records).LastOffsetDelta()) + 1
					waits = append(waits, ackWait{p: p, lead: p.lead, need: need, settle: func(code int16) {
						resp.Topics[ti].Partitions[pi].ErrorCode = code
					}})
				}
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return syncs, waits
}

// produce validates and appends one partition's batch of the Produce r,
// filling sp. It reports whether the partition must be synced before the
// answer goes out.
func (b *Broker) produce(p *Partition, r *Request, records []byte, sp *kmsg.ProduceResponseTopicPartition) bool {
	if err := record.Validate(records); err != nil {
		sp.ErrorCode = kerr.CorruptMessage.Code
		if !errors.Is(err, record.ErrCRC) && !errors.Is(err, record.ErrShort) && !errors.Is(err, record.ErrLength) {
			sp.ErrorCode = kerr.InvalidRecord.Code
		}
		msg := err.Error()
		sp.ErrorMessage = &msg
		return false
	}
	batch := record.Batch(records)
	overrides := p.Topic.Configs
	if max := b.cfg.Settings.TopicInt64(overrides, "max.message.bytes"); int64(len(batch)) > max {
		sp.ErrorCode = kerr.MessageTooLarge.Code
		return false
	}
	if batch.IsControl() {
		sp.ErrorCode = kerr.InvalidRecord.Code
		return false
	}
	if msg, errs := keylessInCompacted(p, batch); msg != "" {
		sp.ErrorCode, sp.ErrorMessage, sp.ErrorRecords = kerr.InvalidRecord.Code, &msg, errs
		return false
	}
	logAppendTime := false
	if v, _, _ := b.cfg.Settings.Topic(overrides, "message.timestamp.type"); v == "LogAppendTime" {
		logAppendTime = true
	}
	if batch.ProducerID() >= 0 || batch.IsTransactional() {
		v := p.producers.CheckAppend(batch)
		if v.ErrorCode == 0 && v.Duplicate == nil {
			v.ErrorCode, v.Message = b.verifyTxn(p, r, batch)
		}
		if v.ErrorCode != 0 {
			sp.ErrorCode = v.ErrorCode
			if v.Message != "" {
				sp.ErrorMessage = &v.Message
			}
			return false
		}
		if d := v.Duplicate; d != nil {
			// Kafka answers a duplicate with the original offsets and no
			// error; the data is where the first attempt put it. If that
			// attempt still waits for a sync, so does this answer.
			sp.BaseOffset = d.FirstOffset
			sp.LogStartOffset = p.log.StartOffset()
			if logAppendTime {
				sp.LogAppendTime = d.Timestamp
			}
			if p.log.NeedsFlush(b.now) {
				b.markDirty(p)
				return true
			}
			return false
		}
	}
	if logAppendTime {
		batch.SetLogAppendTime(b.now)
		sp.LogAppendTime = b.now
	}
	batch.SetPartitionLeaderEpoch(p.LeaderEpoch)
	base, err := p.log.Append(batch, b.now)
	if err != nil {
		b.failPartition(p, fmt.Errorf("appending to %s: %w", p, err))
		sp.ErrorCode = kerr.KafkaStorageError.Code
		return false
	}
	if err := applyBatch(p.log, p.producers, batch); err != nil {
		// The batch was validated before the append; a data batch cannot fail.
		panic(fmt.Sprintf("broker: %s: producer state refused appended batch at %d: %v", p, base, err))
	}
	p.epochs.assign(p.LeaderEpoch, base)
	sp.BaseOffset = base
	sp.LogStartOffset = p.log.StartOffset()
	b.advanceHighWatermark(p)
	b.wakeFetches(p)
	if p.log.NeedsFlush(b.now) {
		b.markDirty(p)
		return true
	}
	return false
}

// verifyTxn asks the transaction coordinator, through TxnHooks.Verify,
// whether the first transactional batch of a transaction on p belongs to a
// transaction it knows (KIP-890 part 1), or, for a Produce v12+, has it
// add p to the transaction (TxnHooks.Add, KIP-890 part 2). A remote
// coordinator's verdict on r is taken instead (verify_txn.go). Later
// batches of the same transaction, non-transactional batches, and
// brokers without the hook pass.
func (b *Broker) verifyTxn(p *Partition, r *Request, batch record.Batch) (int16, string) {
	req := r.Msg.(*kmsg.ProduceRequest)
	txnID, add := req.TransactionID, req.Version >= 12
	if !b.needsVerification(p, batch, add) {
		return 0, ""
	}
	if txnID == nil {
		return kerr.InvalidTxnState.Code, "transactional batch in a produce request without a transactional id"
	}
	code, remote := r.remoteVerdict(p, batch)
	switch {
	case remote:
	case add:
		code = coordinatorError(b.txnHooks.Add(*txnID, batch.ProducerID(), batch.ProducerEpoch(), p.Topic.Name, p.Index))
	default:
		code = coordinatorError(b.txnHooks.Verify(*txnID, batch.ProducerID(), batch.ProducerEpoch(), p.Topic.Name, p.Index))
	}
	code = produceVerifyError(code, add)
	if code != 0 {
		return code, fmt.Sprintf("transaction coordinator does not have %s in the transaction of producer %d", p, batch.ProducerID())
	}
	return 0, ""
}

// awaitImplicitAdds makes the answer of a Produce v12+ wait for the
// __transaction_state records its implicit adds wrote in-process, as
// Kafka appends the add before the data: until they are durable the
// producer is not told its batches are in a transaction. A write that
// failed answers NOT_ENOUGH_REPLICAS, which the producer retries.
func awaitImplicitAdds(resp *kmsg.ProduceResponse, adds coordinatorWrites, syncs, waits []ackWait) ([]ackWait, []ackWait) {
	settle := func(code int16) {
		if code != 0 {
			wire.OverwriteErrorCodes(resp, kerr.NotEnoughReplicas.Code)
		}
	}
	for _, aw := range adds.syncs {
		aw.settle = settle
		syncs = append(syncs, aw)
	}
	for _, aw := range adds.waits {
		aw.settle = settle
		waits = append(waits, aw)
	}
	return syncs, waits
}

// produceACL: a transactional Produce needs WRITE on its transactional
// id, else every partition is TRANSACTIONAL_ID_AUTHORIZATION_FAILED; each
// topic needs WRITE, a refused one answered alone (with acks=0 nothing
// is answered, so nothing is trimmed).
type produceACL struct{}

func (produceACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.ProduceRequest)
	if q.TransactionID != nil && b.refuseTxnID(r, *q.TransactionID) != nil {
		return answered(r, func(resp kmsg.Response) {
			for _, t := range q.Topics {
				addTopics(resp, t, kerr.TransactionalIDAuthorizationFailed)
			}
		}), nil
	}
	deny, trim := partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationWrite), addTopics)
	if q.Acks == 0 {
		trim = nil // no answer to complete
	}
	return deny, trim
}
