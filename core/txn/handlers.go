package txn

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetsTopic is where AddOffsetsToTxn puts a group's partition.
const OffsetsTopic = "__consumer_offsets"

// Handle serves one transaction coordinator request and returns its
// answer; requests it does not serve get nil. The broker routes
// InitProducerId (with a transactional id), AddPartitionsToTxn,
// AddOffsetsToTxn, EndTxn, DescribeTransactions and ListTransactions here.
func (c *Coordinator) Handle(now int64, req kmsg.Request) kmsg.Response {
	c.advance(now)
	switch r := req.(type) {
	case *kmsg.InitProducerIDRequest:
		return c.initProducerID(r)
	case *kmsg.AddPartitionsToTxnRequest:
		return c.addPartitionsToTxn(r)
	case *kmsg.AddOffsetsToTxnRequest:
		resp := r.ResponseKind().(*kmsg.AddOffsetsToTxnResponse)
		tp := TopicPartition{OffsetsTopic, c.cfg.GroupPartition(r.Group)}
		resp.ErrorCode = fenced(c.add(r.TransactionalID, r.ProducerID, r.ProducerEpoch, []TopicPartition{tp}, 0), r.Version < 2)
		return resp
	case *kmsg.EndTxnRequest:
		resp := r.ResponseKind().(*kmsg.EndTxnResponse)
		resp.ProducerID, resp.ProducerEpoch = -1, -1
		if r.Version >= 5 {
			resp.ErrorCode, resp.ProducerID, resp.ProducerEpoch = c.endTxnV2(r)
			return resp
		}
		resp.ErrorCode = fenced(c.endTxn(r), r.Version < 2)
		return resp
	case *kmsg.DescribeTransactionsRequest:
		return c.describeTransactions(r)
	case *kmsg.ListTransactionsRequest:
		return c.listTransactions(r)
	}
	return nil
}

// fenced turns PRODUCER_FENCED into INVALID_PRODUCER_EPOCH for request
// versions from before KIP-588, which do not know the newer code.
func fenced(code int16, old bool) int16 {
	if old && code == kerr.ProducerFenced.Code {
		return kerr.InvalidProducerEpoch.Code
	}
	return code
}

// InitProducerId with a transactional id (Kafka's handleInitProducerId):
// the first call allocates a producer id with epoch 0; every later call
// bumps the epoch, which fences the instance that used the older one. An
// open transaction is aborted first, with its own epoch bump, and the
// caller is told CONCURRENT_TRANSACTIONS until that abort is complete.
func (c *Coordinator) initProducerID(req *kmsg.InitProducerIDRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.InitProducerIDResponse)
	resp.ProducerID, resp.ProducerEpoch = -1, -1
	fail := func(code int16) kmsg.Response {
		resp.ErrorCode = fenced(code, req.Version < 4)
		return resp
	}
	id := *req.TransactionalID
	switch {
	case id == "":
		return fail(kerr.InvalidRequest.Code)
	case req.TransactionTimeoutMillis <= 0 || req.TransactionTimeoutMillis > c.cfg.MaxTimeoutMs:
		return fail(kerr.InvalidTransactionTimeout.Code)
	}
	m := c.txns[id]
	if m == nil {
		pid, err := c.cfg.ProducerIDs()
		if err != nil {
			c.cfg.Logf("%s: allocating a producer id: %v", id, err)
			return fail(kerr.CoordinatorNotAvailable.Code)
		}
		m = &Metadata{TransactionalID: id, ProducerID: pid, ProducerEpoch: -1, LastProducerEpoch: -1, State: Empty, StartTimestamp: -1,
			PrevProducerID: -1, NextProducerID: -1}
	}
	// KIP-360: a producer that names its id and epoch is re-initialising
	// after an error; it must still be the current instance.
	expect := req.ProducerID >= 0
	if expect && req.ProducerID != m.ProducerID {
		return fail(kerr.InvalidProducerIDMapping.Code)
	}
	switch m.State {
	case PrepareCommit, PrepareAbort, PrepareEpochFence:
		return fail(kerr.ConcurrentTransactions.Code)
	case Ongoing:
		if expect && req.ProducerEpoch != m.ProducerEpoch {
			return fail(kerr.ProducerFenced.Code)
		}
		c.cfg.Logf("%s: InitProducerId while a transaction of epoch %d is open: aborting it", id, m.ProducerEpoch)
		if code := c.fenceAndAbort(m); code != 0 {
			return fail(code)
		}
		return fail(kerr.ConcurrentTransactions.Code)
	}
	next := m.clone()
	switch {
	case expect && req.ProducerEpoch == m.LastProducerEpoch && m.LastProducerEpoch >= 0:
		// A retry whose answer was lost: the bump already happened.
		resp.ProducerID, resp.ProducerEpoch = m.ProducerID, m.ProducerEpoch
		return resp
	case expect && req.ProducerEpoch != m.ProducerEpoch:
		return fail(kerr.ProducerFenced.Code)
	case m.ProducerEpoch >= maxEpoch:
		pid, err := c.cfg.ProducerIDs()
		if err != nil {
			return fail(kerr.CoordinatorNotAvailable.Code)
		}
		c.cfg.Logf("%s: epoch of producer %d exhausted: new producer id %d", id, m.ProducerID, pid)
		next.ProducerID, next.ProducerEpoch, next.LastProducerEpoch = pid, 0, -1
	default:
		next.LastProducerEpoch = m.ProducerEpoch
		next.ProducerEpoch = m.ProducerEpoch + 1
	}
	next.State, next.TimeoutMs = Empty, req.TransactionTimeoutMillis
	next.Partitions, next.StartTimestamp, next.pending = nil, -1, nil
	if err := c.write(next); err != nil {
		return fail(writeFailed())
	}
	resp.ProducerID, resp.ProducerEpoch = next.ProducerID, next.ProducerEpoch
	return resp
}

// check is what every request of a running producer passes first.
func (c *Coordinator) check(id string, pid int64, epoch int16) (*Metadata, int16) {
	m := c.txns[id]
	switch {
	case m == nil || m.ProducerID != pid:
		return m, kerr.InvalidProducerIDMapping.Code
	case m.ProducerEpoch != epoch:
		return m, kerr.ProducerFenced.Code
	case m.State == PrepareCommit || m.State == PrepareAbort || m.State == PrepareEpochFence:
		return m, kerr.ConcurrentTransactions.Code
	case m.State == Dead:
		return m, kerr.InvalidTxnState.Code
	}
	return m, 0
}

// add puts partitions in the producer's transaction (Kafka's
// handleAddPartitionsToTransaction): the first one starts it (Ongoing,
// and the timeout clock), partitions already in it change nothing. tv is
// the transaction version of the request: 2 for an implicit add (KIP-890
// part 2), which the transaction then keeps.
func (c *Coordinator) add(id string, pid int64, epoch int16, tps []TopicPartition, tv int16) int16 {
	m, code := c.check(id, pid, epoch)
	if code != 0 {
		return code
	}
	if m.State == Ongoing && m.ClientTV >= tv {
		missing := false
		for _, tp := range tps {
			missing = missing || !m.has(tp)
		}
		if !missing {
			return 0
		}
	}
	next := m.clone()
	if m.State != Ongoing {
		next.Partitions, next.StartTimestamp, next.ClientTV = nil, c.now, 0
	}
	next.State, next.ClientTV = Ongoing, max(next.ClientTV, tv)
	next.add(tps)
	if err := c.write(next); err != nil {
		return writeFailed()
	}
	return 0
}

// AddPartitionsToTxn v0-5: v0-3 from producers; v4+ batches several
// transactions and is sent by partition leaders, VerifyOnly asking
// whether the partitions are already in the transaction (KIP-890 part 1);
// v5 without VerifyOnly adds them for a Produce v12+, under transaction
// version 2 (KIP-890 part 2).
func (c *Coordinator) addPartitionsToTxn(req *kmsg.AddPartitionsToTxnRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.AddPartitionsToTxnResponse)
	if req.Version < 4 {
		rs := c.addOne(req.TransactionalID, req.ProducerID, req.ProducerEpoch, false, 0, convertTopics(req.Topics))
		for _, t := range rs {
			rt := kmsg.NewAddPartitionsToTxnResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewAddPartitionsToTxnResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p.Partition, fenced(p.ErrorCode, req.Version < 2)
				rt.Partitions = append(rt.Partitions, rp)
			}
			resp.Topics = append(resp.Topics, rt)
		}
		return resp
	}
	for _, tx := range req.Transactions {
		var topics []kmsg.AddPartitionsToTxnRequestTopic
		for _, t := range tx.Topics {
			topics = append(topics, kmsg.AddPartitionsToTxnRequestTopic{Topic: t.Topic, Partitions: t.Partitions})
		}
		rt := kmsg.NewAddPartitionsToTxnResponseTransaction()
		rt.TransactionalID = tx.TransactionalID
		tv := int16(0)
		if req.Version >= 5 {
			tv = 2 // a leader adding for a Produce v12+ (KIP-890 part 2)
		}
		rt.Topics = c.addOne(tx.TransactionalID, tx.ProducerID, tx.ProducerEpoch, tx.VerifyOnly, tv, convertTopics(topics))
		resp.Transactions = append(resp.Transactions, rt)
	}
	return resp
}

func convertTopics(ts []kmsg.AddPartitionsToTxnRequestTopic) []TopicPartition {
	var out []TopicPartition
	for _, t := range ts {
		for _, p := range t.Partitions {
			out = append(out, TopicPartition{t.Topic, p})
		}
	}
	return out
}

// addOne adds (or, verifyOnly, checks) one transaction's partitions and
// answers per partition. An unknown partition gets
// UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED, as
// Kafka's KafkaApis answers before it asks the coordinator.
func (c *Coordinator) addOne(id string, pid int64, epoch int16, verifyOnly bool, tv int16, tps []TopicPartition) []kmsg.AddPartitionsToTxnResponseTransactionTopic {
	codes := make([]int16, len(tps))
	unknown := false
	for i, tp := range tps {
		if !c.cfg.PartitionExists(tp.Topic, tp.Partition) {
			codes[i], unknown = kerr.UnknownTopicOrPartition.Code, true
		}
	}
	switch {
	case unknown:
		for i := range codes {
			if codes[i] == 0 {
				codes[i] = kerr.OperationNotAttempted.Code
			}
		}
	case verifyOnly:
		for i, tp := range tps {
			codes[i] = c.Verify(id, pid, epoch, tp.Topic, tp.Partition)
		}
	default:
		code := c.add(id, pid, epoch, tps, tv)
		for i := range codes {
			codes[i] = code
		}
	}
	var out []kmsg.AddPartitionsToTxnResponseTransactionTopic
	for i, tp := range tps {
		if n := len(out); n == 0 || out[n-1].Topic != tp.Topic {
			t := kmsg.NewAddPartitionsToTxnResponseTransactionTopic()
			t.Topic = tp.Topic
			out = append(out, t)
		}
		rp := kmsg.NewAddPartitionsToTxnResponseTransactionTopicPartition()
		rp.Partition, rp.ErrorCode = tp.Partition, codes[i]
		out[len(out)-1].Partitions = append(out[len(out)-1].Partitions, rp)
	}
	return out
}

// Verify answers a partition leader that is about to append the first
// transactional batch of a producer (KIP-890 part 1): 0 when the
// partition is in the producer's ongoing transaction, otherwise
// INVALID_PRODUCER_EPOCH for an older epoch and INVALID_TXN_STATE when the
// partition was never added (a hanging transaction prevented).
func (c *Coordinator) Verify(id string, pid int64, epoch int16, topic string, partition int32) int16 {
	m := c.txns[id]
	switch {
	case m == nil || m.ProducerID != pid:
		return kerr.InvalidProducerIDMapping.Code
	case epoch < m.ProducerEpoch:
		return kerr.InvalidProducerEpoch.Code
	case epoch > m.ProducerEpoch || m.State != Ongoing || !m.has(TopicPartition{topic, partition}):
		return kerr.InvalidTxnState.Code
	}
	return 0
}

// Add puts one partition in a producer's transaction for its leader,
// which appends the producer's first batch of a Produce v12+ there
// (KIP-890 part 2: the producer sends no AddPartitionsToTxn), or for the
// group coordinator of a TxnOffsetCommit v5+. The transaction becomes one
// of transaction version 2.
func (c *Coordinator) Add(id string, pid int64, epoch int16, topic string, partition int32) int16 {
	return c.add(id, pid, epoch, []TopicPartition{{topic, partition}}, 2)
}

// Ending reports whether the transactional id's last transaction is
// decided and its markers are still out: an add now would be answered
// CONCURRENT_TRANSACTIONS.
func (c *Coordinator) Ending(id string) bool {
	m := c.txns[id]
	return m != nil && (m.decided() || m.State == PrepareEpochFence)
}

// endTxn decides (Kafka's handleEndTransaction, transaction version 1):
// Ongoing becomes PrepareCommit or PrepareAbort; a retry of a decision
// already complete is answered NONE; a decision being completed is
// answered CONCURRENT_TRANSACTIONS.
func (c *Coordinator) endTxn(req *kmsg.EndTxnRequest) int16 {
	m := c.txns[req.TransactionalID]
	switch {
	case m == nil || m.ProducerID != req.ProducerID:
		return kerr.InvalidProducerIDMapping.Code
	case m.ProducerEpoch != req.ProducerEpoch:
		return kerr.ProducerFenced.Code
	}
	switch m.State {
	case Ongoing:
		to := PrepareAbort
		if req.Commit {
			to = PrepareCommit
		}
		return c.prepare(m.clone(), to)
	case CompleteCommit:
		if req.Commit {
			return 0
		}
	case CompleteAbort:
		if !req.Commit {
			return 0
		}
	case PrepareCommit:
		if req.Commit {
			return kerr.ConcurrentTransactions.Code
		}
	case PrepareAbort:
		if !req.Commit {
			return kerr.ConcurrentTransactions.Code
		}
	case PrepareEpochFence:
		return kerr.ConcurrentTransactions.Code
	}
	return kerr.InvalidTxnState.Code
}

// DescribeTransactions v0 (KIP-664).
func (c *Coordinator) describeTransactions(req *kmsg.DescribeTransactionsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DescribeTransactionsResponse)
	for _, id := range req.TransactionalIDs {
		st := kmsg.NewDescribeTransactionsResponseTransactionState()
		st.TransactionalID, st.ProducerID, st.ProducerEpoch, st.StartTimestamp = id, -1, -1, -1
		m := c.txns[id]
		if m == nil {
			st.ErrorCode = kerr.TransactionalIDNotFound.Code
			resp.TransactionStates = append(resp.TransactionStates, st)
			continue
		}
		st.State, st.TimeoutMillis, st.StartTimestamp = m.State.Name(), m.TimeoutMs, m.StartTimestamp
		st.ProducerID, st.ProducerEpoch = m.ProducerID, m.ProducerEpoch
		for _, tp := range m.Partitions {
			if n := len(st.Topics); n > 0 && st.Topics[n-1].Topic == tp.Topic {
				st.Topics[n-1].Partitions = append(st.Topics[n-1].Partitions, tp.Partition)
				continue
			}
			t := kmsg.NewDescribeTransactionsResponseTransactionStateTopic()
			t.Topic, t.Partitions = tp.Topic, []int32{tp.Partition}
			st.Topics = append(st.Topics, t)
		}
		resp.TransactionStates = append(resp.TransactionStates, st)
	}
	return resp
}

// ListTransactions v0-1 (KIP-664; v1 adds the duration filter, KIP-994).
func (c *Coordinator) listTransactions(req *kmsg.ListTransactionsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.ListTransactionsResponse)
	states := map[State]bool{}
	for _, f := range req.StateFilters {
		if s, ok := parseStateName(f); ok {
			states[s] = true
		} else {
			resp.UnknownStateFilters = append(resp.UnknownStateFilters, f)
		}
	}
	pids := map[int64]bool{}
	for _, p := range req.ProducerIDFilters {
		pids[p] = true
	}
	for _, id := range c.IDs() {
		m := c.txns[id]
		switch {
		case len(req.StateFilters) > 0 && !states[m.State]:
			continue
		case len(pids) > 0 && !pids[m.ProducerID]:
			continue
		case req.Version >= 1 && req.DurationFilterMillis >= 0 && (m.StartTimestamp < 0 || c.now-m.StartTimestamp < req.DurationFilterMillis):
			continue
		}
		ts := kmsg.NewListTransactionsResponseTransactionState()
		ts.TransactionalID, ts.ProducerID, ts.TransactionState = id, m.ProducerID, m.State.Name()
		resp.TransactionStates = append(resp.TransactionStates, ts)
	}
	return resp
}
