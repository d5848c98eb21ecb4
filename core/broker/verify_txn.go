package broker

import (
	"maps"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// Transaction verification across brokers (KIP-890 part 1). Before the
// first transactional batch of a producer's transaction is appended to a
// partition, its leader asks the transaction coordinator whether the
// partition is in the producer's ongoing transaction, so a late or stray
// batch cannot open a transaction the coordinator will never end (a
// hanging transaction holds the last stable offset back for good). When
// the coordinator runs on this broker the answer is immediate (verifyTxn);
// otherwise the leader sends AddPartitionsToTxn v4 with VerifyOnly (Kafka's
// AddPartitionsToTxnManager) and the whole produce request waits for the
// answer, then runs again with the verdicts in hand.
//
// What the coordinator said is kept as Kafka's AddPartitionsToTxnManager
// hands it to its caller (coordinatorError) and turned into the caller's
// answer last: a Produce turns the coordinator errors a producer may not
// retry into NOT_ENOUGH_REPLICAS (produceVerifyError), a TxnOffsetCommit
// answers them as the group coordinator answers any failed write
// (offsetCommitError: COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR,
// COORDINATOR_LOAD_IN_PROGRESS), never NOT_ENOUGH_REPLICAS.
//
// A Produce v12+ (transaction version 2, KIP-890 part 2) comes without a
// preceding AddPartitionsToTxn: the same path adds the partition instead
// of verifying it (TxnHooks.Add in-process, AddPartitionsToTxn v5 without
// VerifyOnly to a remote coordinator), whatever
// transaction.partition.verification.enable says.

// verifyKey names one verdict: a producer epoch's batch for a partition.
type verifyKey struct {
	pid       int64
	epoch     int16
	topic     string
	partition int32
}

// needsVerification reports whether batch must be verified (or, add,
// added) before it is appended to p: it is transactional and opens the
// producer's transaction on p at this epoch.
func (b *Broker) needsVerification(p *Partition, batch record.Batch, add bool) bool {
	if !batch.IsTransactional() || (!add && b.txnHooks.Verify == nil) || (add && b.txnHooks.Add == nil) {
		return false
	}
	e, ok := p.producers.Get(batch.ProducerID())
	return !ok || e.TxnFirstOffset < 0 || e.Epoch != batch.ProducerEpoch()
}

// verifyRemotely holds a transactional produce whose transaction
// coordinator is another broker until that coordinator has verified the
// partitions that need it; it reports whether it held the request. The
// verdicts ride on the second run of the request (Request.verdicts),
// which verifyTxn consumes.
func (b *Broker) verifyRemotely(r *Request, req *kmsg.ProduceRequest) bool {
	add := req.Version >= 12
	if req.TransactionID == nil || (!add && b.txnHooks.Verify == nil) {
		return false
	}
	id := *req.TransactionID
	if b.image.coordinatorHere(TransactionStateTopic, b.txn.PartitionFor(id)) {
		// Asked in-process by verifyTxn, once the previous end is done.
		return add && b.txn.Ending(id) && b.retryAdd(r, handleProduce)
	}
	ask := kmsg.NewAddPartitionsToTxnRequestTransaction()
	ask.TransactionalID, ask.VerifyOnly = id, !add
	var keys []verifyKey
	for _, rt := range req.Topics {
		t := b.lookup(rt.Topic, rt.TopicID)
		for _, rp := range rt.Partitions {
			p := t.partition(rp.Partition)
			if p == nil || !b.leads(p) || record.Validate(rp.Records) != nil {
				continue // the normal path answers these
			}
			batch := record.Batch(rp.Records)
			k := verifyKey{batch.ProducerID(), batch.ProducerEpoch(), p.Topic.Name, p.Index}
			if _, known := r.verdicts[k]; known || !b.needsVerification(p, batch, add) {
				continue
			}
			ask.ProducerID, ask.ProducerEpoch = k.pid, k.epoch
			if n := len(ask.Topics); n == 0 || ask.Topics[n-1].Topic != k.topic {
				ask.Topics = append(ask.Topics, kmsg.AddPartitionsToTxnRequestTransactionTopic{Topic: k.topic})
			}
			ask.Topics[len(ask.Topics)-1].Partitions = append(ask.Topics[len(ask.Topics)-1].Partitions, k.partition)
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return false
	}
	b.askCoordinator(ask, keys, add, r, handleProduce)
	return true
}

// Kafka's add.partitions.to.txn.retry.backoff.ms and
// add.partitions.to.txn.retry.backoff.max.ms: how often, and how long, a
// leader tries again to add a partition while the producer's previous
// transaction is still being completed.
const (
	addRetryBackoffMs = 20
	addRetryMaxMs     = 100
)

// heldAdd is a request to run again at a time.
type heldAdd struct {
	at  int64
	run func()
}

// retryAdd holds a Produce v12+ or TxnOffsetCommit v5+ whose implicit
// add met the end of the producer's previous transaction (markers still
// out: CONCURRENT_TRANSACTIONS) and runs handler on it again after
// addRetryBackoffMs, as Kafka's leader retries the add rather than
// bouncing the producer (whose retry may wait for a metadata refresh).
// It reports false once addRetryMaxMs passed since the request was first
// held: the producer then gets CONCURRENT_TRANSACTIONS.
func (b *Broker) retryAdd(r *Request, handler func(*Broker, *Request) kmsg.Response) bool {
	if b.cl == nil {
		return false
	}
	if r.addUntil == 0 {
		r.addUntil = b.now + addRetryMaxMs
	}
	if b.now >= r.addUntil {
		return false
	}
	held := *r
	b.cl.addRetries = append(b.cl.addRetries, heldAdd{at: b.now + addRetryBackoffMs, run: func() { b.runAgain(&held, handler) }})
	return true
}

// runAgain runs handler on a held request again and answers with what it
// gives now, if any; one it gives later the handler answers itself.
func (b *Broker) runAgain(held *Request, handler func(*Broker, *Request) kmsg.Response) {
	if out := handler(b, held); out != nil {
		b.reply(*held, out)
	}
}

// runAddRetries runs the held requests whose time has come.
func (b *Broker) runAddRetries() {
	var due []heldAdd
	kept := b.cl.addRetries[:0]
	for _, h := range b.cl.addRetries {
		if h.at <= b.now {
			due = append(due, h)
		} else {
			kept = append(kept, h)
		}
	}
	clear(b.cl.addRetries[len(kept):])
	b.cl.addRetries = kept
	for _, h := range due {
		h.run()
	}
}

// askCoordinator holds r, sends one transaction's AddPartitionsToTxn (v4
// VerifyOnly, or v5 adding them, add) to its remote coordinator for the
// partitions keys name and, once answered, runs handler on the held
// request again with the verdicts on it (Request.verdicts), which that
// run consumes. The verdicts hold for that run only: those left over
// (the request failed earlier checks) are dropped after it, so a later
// run asks again. An answer that comes at once (no coordinator) finds
// the run that asked still in progress: the verdicts it has not taken
// ride along, so that the run asks none of its partitions twice. A
// verdict is what Kafka's AddPartitionsToTxnManager hands its caller
// (addOrVerifyTransaction and AddPartitionsToTxnHandler.onComplete):
// COORDINATOR_NOT_AVAILABLE when the coordinator's partition has no
// leader, NETWORK_EXCEPTION when the request got no answer (the link
// failed or it timed out), the answer's top-level error for every
// partition (CLUSTER_AUTHORIZATION_FAILED as INVALID_TXN_STATE), else
// each partition's (coordinatorError). An add answered
// CONCURRENT_TRANSACTIONS is held again by retryAdd while it can be.
func (b *Broker) askCoordinator(ask kmsg.AddPartitionsToTxnRequestTransaction, keys []verifyKey, add bool, r *Request, handler func(*Broker, *Request) kmsg.Response) {
	held := *r
	answered := func(all int16, resp kmsg.Response) {
		ar, _ := resp.(*kmsg.AddPartitionsToTxnResponse)
		if add && ar != nil && concurrent(ar) && b.retryAdd(&held, handler) {
			return
		}
		verdicts := map[verifyKey]int16{}
		maps.Copy(verdicts, held.verdicts) // the asking run's, when it is still in progress
		switch {
		case ar != nil && ar.ErrorCode == kerr.ClusterAuthorizationFailed.Code:
			all = kerr.InvalidTxnState.Code // the client must not see the broker's own authorization
		case ar != nil && ar.ErrorCode != 0:
			all = ar.ErrorCode
		}
		for _, k := range keys {
			verdicts[k] = all // unless answered below
		}
		if ar != nil && ar.ErrorCode == 0 {
			for _, tx := range ar.Transactions {
				for _, t := range tx.Topics {
					for _, p := range t.Partitions {
						k := verifyKey{ask.ProducerID, ask.ProducerEpoch, t.Topic, p.Partition}
						verdicts[k] = coordinatorError(p.ErrorCode)
					}
				}
			}
		}
		held.verdicts = verdicts
		b.runAgain(&held, handler)
		clear(verdicts) // copies of the request held by this run see none
	}
	coordinator, _, _, ok := b.internalLeader(TransactionStateTopic, b.txn.PartitionFor(ask.TransactionalID))
	if !ok {
		answered(kerr.CoordinatorNotAvailable.Code, nil)
		return
	}
	req := kmsg.NewPtrAddPartitionsToTxnRequest()
	req.SetVersion(4)
	if add {
		req.SetVersion(5)
	}
	req.Transactions = append(req.Transactions, ask)
	b.send(coordinator, req, func(resp kmsg.Response) { answered(kerr.NetworkException.Code, resp) })
}

// coordinatorError is a transaction coordinator's answer about one
// partition as Kafka's AddPartitionsToTxnManager hands it to its caller:
// PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH, which producers expect
// there; every other code as it came. The in-process coordinator's
// answers go through it too.
func coordinatorError(code int16) int16 {
	if code == kerr.ProducerFenced.Code {
		return kerr.InvalidProducerEpoch.Code
	}
	return code
}

// produceVerifyError is a Produce's answer for a partition whose
// verification, or implicit add (add), failed with code (a
// coordinatorError), as Kafka's ReplicaManager.handleProduceAppend
// translates it: the retriable coordinator errors an older producer may
// not retry become NOT_ENOUGH_REPLICAS, which it retries without a
// metadata refresh. CONCURRENT_TRANSACTIONS stays for an implicit add
// (KAFKA-18662: transaction version 2 producers retry it, and it is
// common while the previous transaction's markers are out).
func produceVerifyError(code int16, add bool) int16 {
	switch code {
	case kerr.NetworkException.Code, kerr.CoordinatorLoadInProgress.Code,
		kerr.CoordinatorNotAvailable.Code, kerr.NotCoordinator.Code:
		return kerr.NotEnoughReplicas.Code
	case kerr.ConcurrentTransactions.Code:
		if !add {
			return kerr.NotEnoughReplicas.Code
		}
	}
	return code
}

// offsetCommitError is the group coordinator's answer to an offset
// commit that failed with code: Kafka's
// CoordinatorOperationExceptionHelper.handleOperationException, which
// GroupCoordinatorService.commitTransactionalOffsets applies to the
// verification (or implicit add) of a TxnOffsetCommit as to its write.
// NETWORK_EXCEPTION becomes COORDINATOR_LOAD_IN_PROGRESS (retried
// without a coordinator lookup); UNKNOWN_TOPIC_OR_PARTITION,
// NOT_ENOUGH_REPLICAS and REQUEST_TIMED_OUT become
// COORDINATOR_NOT_AVAILABLE; NOT_LEADER_OR_FOLLOWER and
// KAFKA_STORAGE_ERROR become NOT_COORDINATOR; the size errors
// UNKNOWN_SERVER_ERROR. Other codes (CONCURRENT_TRANSACTIONS,
// INVALID_PRODUCER_EPOCH, COORDINATOR_NOT_AVAILABLE, ...) stay.
func offsetCommitError(code int16) int16 {
	switch code {
	case kerr.NetworkException.Code:
		return kerr.CoordinatorLoadInProgress.Code
	case kerr.UnknownTopicOrPartition.Code, kerr.NotEnoughReplicas.Code, kerr.RequestTimedOut.Code:
		return kerr.CoordinatorNotAvailable.Code
	case kerr.NotLeaderForPartition.Code, kerr.KafkaStorageError.Code:
		return kerr.NotCoordinator.Code
	case kerr.MessageTooLarge.Code, kerr.RecordListTooLarge.Code, kerr.InvalidFetchSize.Code:
		return kerr.UnknownServerError.Code
	}
	return code
}

// remoteVerdict takes the verdict a remote coordinator gave about batch
// on p for this run of r, if there is one.
func (r *Request) remoteVerdict(p *Partition, batch record.Batch) (int16, bool) {
	return r.takeVerdict(verifyKey{batch.ProducerID(), batch.ProducerEpoch(), p.Topic.Name, p.Index})
}

// takeVerdict takes the verdict about k for this run of r, if there is
// one.
func (r *Request) takeVerdict(k verifyKey) (int16, bool) {
	code, ok := r.verdicts[k]
	delete(r.verdicts, k)
	return code, ok
}

// concurrent reports whether a coordinator answered an add with
// CONCURRENT_TRANSACTIONS: the producer's previous transaction is still
// being completed.
func concurrent(ar *kmsg.AddPartitionsToTxnResponse) bool {
	for _, tx := range ar.Transactions {
		for _, t := range tx.Topics {
			for _, p := range t.Partitions {
				if p.ErrorCode == kerr.ConcurrentTransactions.Code {
					return true
				}
			}
		}
	}
	return false
}
