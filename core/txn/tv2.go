package txn

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// endTxnV2 decides an EndTxn v5+ (transaction version 2, KIP-890 part 2,
// Kafka's handleEndTransaction with clientTransactionVersion 2). Every
// end bumps the producer epoch (prepareV2), so a batch or a marker of
// the ended transaction can never be taken for one of the next, and the
// answer carries the producer id and epoch to continue with. Beyond
// transaction version 1:
//
//   - an abort with nothing in the transaction (Empty, or a transaction
//     already complete at this epoch) is allowed: it just bumps the epoch;
//   - a retry is recognised by the epoch it names, as Kafka's
//     retryOnEpochBump and retryOnOverflow do: one below the current
//     epoch while the transaction is decided or complete, or, after an
//     overflow, the last epoch of the previous producer id. It is
//     answered NONE with the current id and epoch once the decision is
//     complete, CONCURRENT_TRANSACTIONS while its markers are out,
//     INVALID_TXN_STATE for the other decision. The epoch alone tells
//     it, so a retry is recognised by a coordinator that has just
//     replayed the log (the answer was lost in its predecessor's crash):
//     the epoch before the bump is not in the record, and a compacted
//     log no longer holds the record before the decision. A fence bumps
//     the epoch twice (fenceAndAbort), so the fenced producer's epoch is
//     never one below.
func (c *Coordinator) endTxnV2(req *kmsg.EndTxnRequest) (code int16, pid int64, epoch int16) {
	m := c.txns[req.TransactionalID]
	if m == nil {
		return kerr.InvalidProducerIDMapping.Code, -1, -1
	}
	overflowRetry := m.PrevProducerID >= 0 && req.ProducerID == m.PrevProducerID && req.ProducerEpoch >= maxEpoch && m.ProducerEpoch == 0
	if req.ProducerID != m.ProducerID && !overflowRetry {
		return kerr.InvalidProducerIDMapping.Code, -1, -1
	}
	// Kafka's retryOnEpochBump: the epoch is one below the current one.
	// Only a transaction that is ending or ended takes a retry.
	ending := m.State == CompleteCommit || m.State == CompleteAbort || m.decided()
	bumpRetry := req.ProducerID == m.ProducerID && req.ProducerEpoch >= 0 && int(req.ProducerEpoch)+1 == int(m.ProducerEpoch)
	retry := ending && (overflowRetry || bumpRetry)
	if !retry && req.ProducerEpoch != m.ProducerEpoch {
		return kerr.ProducerFenced.Code, -1, -1
	}
	to := PrepareAbort
	if req.Commit {
		to = PrepareCommit
	}
	same := (req.Commit && (m.State == CompleteCommit || m.State == PrepareCommit)) ||
		(!req.Commit && (m.State == CompleteAbort || m.State == PrepareAbort))
	switch {
	case m.State == PrepareEpochFence:
		return kerr.ConcurrentTransactions.Code, -1, -1
	case retry && same && m.decided():
		return kerr.ConcurrentTransactions.Code, -1, -1
	case retry && same:
		return 0, m.ProducerID, m.ProducerEpoch
	case retry, m.decided(), m.State == Dead:
		return kerr.InvalidTxnState.Code, -1, -1
	case m.State == Ongoing, !req.Commit:
		// Ongoing ends; anything else here is an empty abort.
		return c.prepareV2(m, to)
	}
	return kerr.InvalidTxnState.Code, -1, -1
}
