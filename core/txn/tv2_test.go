package txn

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// sentMarkers records every WriteTxnMarkers the coordinator sends and
// answers it written.
type sentMarkers struct {
	reqs []*kmsg.WriteTxnMarkersRequest
}

func (s *sentMarkers) WriteTxnMarkers(req *kmsg.WriteTxnMarkersRequest, done func(*kmsg.WriteTxnMarkersResponse)) {
	s.reqs = append(s.reqs, req)
	(&markers{}).WriteTxnMarkers(req, done)
}

func newCoordTV2(l *memLog, mk MarkerWriter) *Coordinator {
	next := int64(100)
	return New(Config{Partitions: 3, Log: l, Markers: mk, ProducerIDs: func() (int64, error) { next++; return next, nil }}, 0)
}

func endTxnV5(c *Coordinator, id string, pid int64, epoch int16, commit bool, now int64) *kmsg.EndTxnResponse {
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(5)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = id, pid, epoch, commit
	return c.Handle(now, req).(*kmsg.EndTxnResponse)
}

// TestTV2EpochBumpPerTransaction: under transaction version 2 every
// EndTxn bumps the epoch, answers it, and the markers carry it.
func TestTV2EpochBumpPerTransaction(t *testing.T) {
	l, mk := &memLog{recs: map[int32][][2][]byte{}}, &sentMarkers{}
	c := newCoordTV2(l, mk)
	ip := initPID(c, "tx", 1)
	pid, epoch := ip.ProducerID, ip.ProducerEpoch
	for i := range 4 {
		now := int64(10 + 10*i)
		if code := c.Add("tx", pid, epoch, "t", int32(i%2)); code != 0 {
			t.Fatalf("txn %d: implicit add: %v", i, kerr.ErrorForCode(code))
		}
		commit := i%2 == 0
		resp := endTxnV5(c, "tx", pid, epoch, commit, now)
		if resp.ErrorCode != 0 || resp.ProducerID != pid || resp.ProducerEpoch != epoch+1 {
			t.Fatalf("txn %d: EndTxn v5: %v pid=%d epoch=%d, want pid=%d epoch=%d", i, kerr.ErrorForCode(resp.ErrorCode), resp.ProducerID, resp.ProducerEpoch, pid, epoch+1)
		}
		c.WriteMarkers(now)
		m := mk.reqs[len(mk.reqs)-1]
		if m.Version != 2 || m.Markers[0].TransactionVersion != 2 || m.Markers[0].ProducerEpoch != epoch+1 || m.Markers[0].Committed != commit {
			t.Fatalf("txn %d: marker v%d tv=%d epoch=%d commit=%v, want v2 tv=2 epoch=%d commit=%v", i, m.Version, m.Markers[0].TransactionVersion, m.Markers[0].ProducerEpoch, m.Markers[0].Committed, epoch+1, commit)
		}
		st, _ := c.Get("tx")
		want := CompleteAbort
		if commit {
			want = CompleteCommit
		}
		if st.State != want || st.ProducerEpoch != epoch+1 || st.ClientTV != 2 {
			t.Fatalf("txn %d: state %s, want %s at epoch %d tv=2", i, st.Describe(), want, epoch+1)
		}
		// The answer was lost: the retry names the old epoch and gets the
		// same answer; the other decision is refused.
		if r := endTxnV5(c, "tx", pid, epoch, commit, now); r.ErrorCode != 0 || r.ProducerEpoch != epoch+1 {
			t.Fatalf("txn %d: retried EndTxn: %v epoch=%d", i, kerr.ErrorForCode(r.ErrorCode), r.ProducerEpoch)
		}
		if r := endTxnV5(c, "tx", pid, epoch, !commit, now); r.ErrorCode != kerr.InvalidTxnState.Code {
			t.Fatalf("txn %d: retry with the other decision: %v, want INVALID_TXN_STATE", i, kerr.ErrorForCode(r.ErrorCode))
		}
		epoch++
	}
}

// TestTV2ZombieOfPreviousTransaction: the producer of the previous
// transaction (its epoch) can neither join nor end the next one.
func TestTV2ZombieOfPreviousTransaction(t *testing.T) {
	l, mk := &memLog{recs: map[int32][][2][]byte{}}, &sentMarkers{}
	c := newCoordTV2(l, mk)
	ip := initPID(c, "tx", 1)
	pid, old := ip.ProducerID, ip.ProducerEpoch
	c.Add("tx", pid, old, "t", 0)
	cur := endTxnV5(c, "tx", pid, old, true, 2).ProducerEpoch
	c.WriteMarkers(2)
	if code := c.Add("tx", pid, cur, "t", 1); code != 0 {
		t.Fatalf("next transaction: %v", kerr.ErrorForCode(code))
	}
	if code := c.Add("tx", pid, old, "t", 0); code != kerr.ProducerFenced.Code {
		t.Fatalf("zombie add: %v, want PRODUCER_FENCED", kerr.ErrorForCode(code))
	}
	if r := endTxnV5(c, "tx", pid, old, true, 3); r.ErrorCode != kerr.ProducerFenced.Code {
		t.Fatalf("zombie EndTxn: %v, want PRODUCER_FENCED", kerr.ErrorForCode(r.ErrorCode))
	}
	if st, _ := c.Get("tx"); st.State != Ongoing || st.ProducerEpoch != cur || !st.has(TopicPartition{"t", 1}) || st.has(TopicPartition{"t", 0}) {
		t.Fatalf("the zombie changed the transaction: %s", st.Describe())
	}
}

// TestTV2EmptyAbortAndOverflow: an abort of nothing bumps the epoch; at
// the last epoch the end hands over a new producer id, and a retry from
// the old id is recognised.
func TestTV2EmptyAbortAndOverflow(t *testing.T) {
	l, mk := &memLog{recs: map[int32][][2][]byte{}}, &sentMarkers{}
	c := newCoordTV2(l, mk)
	ip := initPID(c, "tx", 1)
	pid := ip.ProducerID
	if r := endTxnV5(c, "tx", pid, 0, false, 2); r.ErrorCode != 0 || r.ProducerEpoch != 1 {
		t.Fatalf("empty abort: %v epoch=%d, want epoch 1", kerr.ErrorForCode(r.ErrorCode), r.ProducerEpoch)
	}
	if r := endTxnV5(c, "tx", pid, 1, true, 2); r.ErrorCode != kerr.InvalidTxnState.Code {
		t.Fatalf("empty commit: %v, want INVALID_TXN_STATE", kerr.ErrorForCode(r.ErrorCode))
	}
	c.WriteMarkers(3)
	// Jump to the last epoch, as a replayed log would have it.
	m := c.txns["tx"].clone()
	m.ProducerEpoch, m.State = maxEpoch, CompleteCommit
	c.Replay(c.PartitionFor("tx"), 99, EncodeKey("tx"), EncodeValue(m))
	c.Add("tx", pid, maxEpoch, "t", 0)
	r := endTxnV5(c, "tx", pid, maxEpoch, true, 4)
	if r.ErrorCode != 0 || r.ProducerID == pid || r.ProducerEpoch != 0 {
		t.Fatalf("end at the last epoch: %v pid=%d epoch=%d, want a new pid at epoch 0", kerr.ErrorForCode(r.ErrorCode), r.ProducerID, r.ProducerEpoch)
	}
	c.WriteMarkers(4)
	if mk := mk.reqs[len(mk.reqs)-1].Markers[0]; mk.ProducerID != pid || mk.ProducerEpoch != maxEpoch+1 {
		t.Fatalf("marker pid=%d epoch=%d, want the old pid at epoch %d", mk.ProducerID, mk.ProducerEpoch, maxEpoch+1)
	}
	st, _ := c.Get("tx")
	if st.ProducerID != r.ProducerID || st.ProducerEpoch != 0 || st.PrevProducerID != pid || st.State != CompleteCommit {
		t.Fatalf("after the overflow: %s prev=%d", st.Describe(), st.PrevProducerID)
	}
	if rr := endTxnV5(c, "tx", pid, maxEpoch, true, 5); rr.ErrorCode != 0 || rr.ProducerID != r.ProducerID || rr.ProducerEpoch != 0 {
		t.Fatalf("retry from the old id: %v pid=%d epoch=%d", kerr.ErrorForCode(rr.ErrorCode), rr.ProducerID, rr.ProducerEpoch)
	}
	// The record of transaction version 2 replays to the same state.
	fresh := newCoordTV2(&memLog{recs: map[int32][][2][]byte{}}, mk)
	p := c.PartitionFor("tx")
	for off, kv := range l.recs[p] {
		fresh.Replay(p, int64(off), kv[0], kv[1])
	}
	if got, _ := fresh.Get("tx"); got.Describe() != st.Describe() || got.PrevProducerID != st.PrevProducerID || got.ClientTV != 2 {
		t.Fatalf("replayed %s prev=%d, live %s prev=%d", got.Describe(), got.PrevProducerID, st.Describe(), st.PrevProducerID)
	}
}

// TestTV1Unchanged: EndTxn v4 keeps the epoch and answers no id.
func TestTV1Unchanged(t *testing.T) {
	l, mk := &memLog{recs: map[int32][][2][]byte{}}, &sentMarkers{}
	c := newCoordTV2(l, mk)
	ip := initPID(c, "tx", 1)
	addPart(c, "tx", ip.ProducerID, ip.ProducerEpoch, 2)
	req := kmsg.NewPtrEndTxnRequest()
	req.SetVersion(4)
	req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Commit = "tx", ip.ProducerID, ip.ProducerEpoch, true
	resp := c.Handle(3, req).(*kmsg.EndTxnResponse)
	c.WriteMarkers(3)
	st, _ := c.Get("tx")
	if resp.ErrorCode != 0 || resp.ProducerEpoch != -1 || st.ProducerEpoch != ip.ProducerEpoch || st.ClientTV != 0 {
		t.Fatalf("EndTxn v4: %v answered epoch %d, state %s", kerr.ErrorForCode(resp.ErrorCode), resp.ProducerEpoch, st.Describe())
	}
	if m := mk.reqs[0]; m.Version != 1 || m.Markers[0].ProducerEpoch != ip.ProducerEpoch {
		t.Fatalf("TV1 marker v%d epoch %d", m.Version, m.Markers[0].ProducerEpoch)
	}
}

// rebuild is a coordinator restarted on l: every record replayed, the
// decided transactions recovered. compacted replays only the last record
// of each transactional id, as the cleaner leaves __transaction_state.
func rebuild(l *memLog, mk MarkerWriter, compacted bool) *Coordinator {
	c := newCoordTV2(l, mk)
	for p, rs := range l.recs {
		last := map[string]int{}
		for i, kv := range rs {
			id, _, _ := Decode(kv[0], kv[1])
			last[id] = i
		}
		for i, kv := range rs {
			if id, _, _ := Decode(kv[0], kv[1]); compacted && last[id] != i {
				continue
			}
			c.Replay(p, int64(i), kv[0], kv[1])
		}
		c.Recover(p)
	}
	return c
}

// TestTV2EndRetryAcrossRestart: the answer to an EndTxn v5 is lost
// because the coordinator crashed after writing the decision; the
// producer sends the same EndTxn (its old epoch) to the restarted
// coordinator, which must recognise it from the epoch alone (Kafka's
// retryOnEpochBump: the request's epoch is one below the current one),
// as it does without a restart: CONCURRENT_TRANSACTIONS while the
// markers are out, then NONE with the bumped epoch. The epoch before the
// bump is kept in memory only and is not in the log (nor would a
// compacted log still hold the record before the decision).
func TestTV2EndRetryAcrossRestart(t *testing.T) {
	for _, commit := range []bool{true, false} {
		for _, complete := range []bool{true, false} {
			for _, compacted := range []bool{false, true} {
				l, mk := &memLog{recs: map[int32][][2][]byte{}}, &sentMarkers{}
				c := newCoordTV2(l, mk)
				ip := initPID(c, "tx", 1)
				pid, epoch := ip.ProducerID, ip.ProducerEpoch
				// A first transaction, so the decision is not the second
				// record of the id.
				c.Add("tx", pid, epoch, "t", 0)
				epoch = endTxnV5(c, "tx", pid, epoch, true, 2).ProducerEpoch
				c.WriteMarkers(2)
				c.Add("tx", pid, epoch, "t", 1)
				if r := endTxnV5(c, "tx", pid, epoch, commit, 3); r.ErrorCode != 0 || r.ProducerEpoch != epoch+1 {
					t.Fatalf("EndTxn v5: %v epoch=%d", kerr.ErrorForCode(r.ErrorCode), r.ProducerEpoch)
				}
				if complete {
					c.WriteMarkers(3)
				}
				name := fmt.Sprintf("commit=%v complete=%v compacted=%v", commit, complete, compacted)
				c2 := rebuild(l, &sentMarkers{}, compacted)
				r := endTxnV5(c2, "tx", pid, epoch, commit, 4)
				if !complete {
					if r.ErrorCode != kerr.ConcurrentTransactions.Code {
						t.Fatalf("%s: retry while the markers are out: %v, want CONCURRENT_TRANSACTIONS", name, kerr.ErrorForCode(r.ErrorCode))
					}
					c2.WriteMarkers(5)
					r = endTxnV5(c2, "tx", pid, epoch, commit, 6)
				}
				if r.ErrorCode != 0 || r.ProducerID != pid || r.ProducerEpoch != epoch+1 {
					t.Fatalf("%s: retried EndTxn after a restart: %v pid=%d epoch=%d, want NONE pid=%d epoch=%d",
						name, kerr.ErrorForCode(r.ErrorCode), r.ProducerID, r.ProducerEpoch, pid, epoch+1)
				}
				if r := endTxnV5(c2, "tx", pid, epoch, !commit, 6); r.ErrorCode != kerr.InvalidTxnState.Code {
					t.Fatalf("%s: retry with the other decision: %v, want INVALID_TXN_STATE", name, kerr.ErrorForCode(r.ErrorCode))
				}
				// The producer carries on at the bumped epoch.
				if code := c2.Add("tx", pid, epoch+1, "t", 0); code != 0 {
					t.Fatalf("%s: next transaction: %v", name, kerr.ErrorForCode(code))
				}
			}
		}
	}
}

// TestTV2FencedStaysFenced: a transaction of version 2 that ran past its
// timeout is aborted with the fence's bump and the abort's own (Kafka's
// prepareFenceProducerEpoch, then prepareAbortOrCommit under transaction
// version 2), so its producer's EndTxn, a retry in all but name, is
// PRODUCER_FENCED, live and after a restart.
func TestTV2FencedStaysFenced(t *testing.T) {
	l, mk := &memLog{recs: map[int32][][2][]byte{}}, &sentMarkers{}
	c := newCoordTV2(l, mk)
	ip := initPID(c, "tx", 1)
	pid, epoch := ip.ProducerID, ip.ProducerEpoch
	c.Add("tx", pid, epoch, "t", 0)
	c.Tick(20000) // the timeout is 1000 ms
	if st, _ := c.Get("tx"); st.State != PrepareAbort || st.ProducerEpoch != epoch+2 {
		t.Fatalf("timed out: %s, want PREPARE_ABORT at epoch %d", st.Describe(), epoch+2)
	}
	for _, commit := range []bool{true, false} {
		if r := endTxnV5(c, "tx", pid, epoch, commit, 20000); r.ErrorCode != kerr.ProducerFenced.Code {
			t.Fatalf("fenced producer's EndTxn (commit=%v) while the abort is out: %v, want PRODUCER_FENCED", commit, kerr.ErrorForCode(r.ErrorCode))
		}
	}
	c.WriteMarkers(20000)
	if m := mk.reqs[len(mk.reqs)-1].Markers[0]; m.Committed || m.ProducerEpoch != epoch+2 {
		t.Fatalf("marker commit=%v epoch=%d, want an abort at epoch %d", m.Committed, m.ProducerEpoch, epoch+2)
	}
	for _, c := range []*Coordinator{c, rebuild(l, &sentMarkers{}, false), rebuild(l, &sentMarkers{}, true)} {
		for _, commit := range []bool{true, false} {
			if r := endTxnV5(c, "tx", pid, epoch, commit, 20001); r.ErrorCode != kerr.ProducerFenced.Code {
				t.Fatalf("fenced producer's EndTxn (commit=%v): %v, want PRODUCER_FENCED", commit, kerr.ErrorForCode(r.ErrorCode))
			}
		}
	}
}
