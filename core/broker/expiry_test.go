package broker

import (
	"testing"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/txn"
)

// TestTxnIDExpires: a transactional id idle for
// transactional.id.expiration.ms gets a tombstone in __transaction_state
// and is forgotten, also after a restart; the compacted
// __transaction_state then keeps only that tombstone of the id.
func TestTxnIDExpires(t *testing.T) {
	h := newHarness(t, map[string]string{
		"transactional.id.expiration.ms":                             "60000",
		"transaction.remove.expired.transaction.cleanup.interval.ms": "1000",
	})
	h.createTopic("t", 1, nil)
	x, code := h.initTxn("app", 30000)
	must(t, "init", code)
	must(t, "add", x.add("t", 0))
	x.produce(0, "v")
	must(t, "commit", x.end(true))
	tick := func(ms int64) {
		h.now += ms
		h.b.Tick(h.now)
		must(t, "Commit", int16(errCode(h.b.Commit())))
	}
	tick(30_000)
	if got := h.txnState("app"); got.State != txn.CompleteCommit {
		t.Fatalf("30 s idle: %s", got.State)
	}
	tick(31_000)
	if _, ok := h.b.Transactions().Get("app"); ok {
		t.Fatal("an id idle for more than transactional.id.expiration.ms is still there")
	}
	h.open() // a restart replays the tombstone
	if _, ok := h.b.Transactions().Get("app"); ok {
		t.Fatal("the expired id came back after a restart")
	}

	p := h.b.txn.PartitionFor("app")
	part := h.b.Topic(TransactionStateTopic).Partitions[p]
	if !part.Log().Config().Compact {
		t.Fatalf("%s is not compacted", part)
	}
	if err := part.Log().Roll(h.now); err != nil {
		t.Fatal(err)
	}
	if ran, err := h.b.CompactNow(TransactionStateTopic, p); err != nil || !ran {
		t.Fatalf("CompactNow: ran %v, %v", ran, err)
	}
	var left []string
	h.b.ReplayInternal(TransactionStateTopic, p, func(_ int64, r record.Record) {
		id, m, err := txn.Decode(r.Key, r.Value)
		if err != nil {
			t.Fatal(err)
		}
		if m == nil {
			left = append(left, id+" tombstone")
		} else {
			left = append(left, id+" "+m.State.String())
		}
	})
	if len(left) != 1 || left[0] != "app tombstone" {
		t.Fatalf("after compaction __transaction_state holds %q, want only the tombstone", left)
	}
}
