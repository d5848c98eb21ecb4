package sim

import (
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/txn"
)

// viewLines are the lines of a view's output without their actor column.
func viewLines(out string) []string {
	var ls []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		ls = append(ls, strings.TrimSpace(strings.TrimPrefix(l, "b0")))
	}
	return ls
}

// TestShowTxnLog: show txn-log lists only the records of its id, in
// offset order, with the fields the coordinator replays (state,
// partitions, timestamps), and after an expiry and a cleaning the
// tombstone with its delete horizon. shop and export share partition 12
// of 50.
func TestShowTxnLog(t *testing.T) {
	if txn.PartitionFor("shop", 50) != txn.PartitionFor("export", 50) {
		t.Fatal("the test needs two ids in one partition")
	}
	w := New(1)
	if out := execAll(t, w, "broker", "show txn-log shop"); !strings.Contains(out, "__transaction_state does not exist yet") {
		t.Fatalf("before any transaction: %q", out)
	}
	execAll(t, w,
		"topic t partitions=1",
		"producer p transactional.id=shop",
		"producer q transactional.id=export",
		"begin p", "produce p t value=a",
		"advance 2s",
		"commit p")
	out := execAll(t, w, "show txn-log shop")
	want := []string{
		`__transaction_state-12: abs(hashCode("shop")=3529462) % 50 = 12, leo 5`,
		"offset 0: TxnMetadataKey(shop) -> TxnMetadataValue(EMPTY pid=0 epoch=0 timeout=60000ms partitions=[] txn_start=-1 last_update=1000000)",
		"offset 2: TxnMetadataKey(shop) -> TxnMetadataValue(ONGOING pid=0 epoch=0 timeout=60000ms partitions=[t-0] txn_start=1000000 last_update=1000000)",
		"offset 3: TxnMetadataKey(shop) -> TxnMetadataValue(PREPARE_COMMIT pid=0 epoch=0 timeout=60000ms partitions=[t-0] txn_start=1000000 last_update=1002000)",
		"offset 4: TxnMetadataKey(shop) -> TxnMetadataValue(COMPLETE_COMMIT pid=0 epoch=0 timeout=60000ms partitions=[] txn_start=1000000 last_update=1002000)",
	}
	if got := viewLines(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("show txn-log shop:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// export (offset 1) expires after transactional.id.expiration.ms, a
	// week by default: its tombstone follows its EMPTY record.
	execAll(t, w, "advance 169h")
	if _, ok := w.nodes[0].Broker.Transactions().Get("export"); ok {
		t.Fatal("export did not expire")
	}
	before := viewLines(execAll(t, w, "show txn-log export"))
	if len(before) != 3 || !strings.HasPrefix(before[1], "offset 1: TxnMetadataKey(export) -> TxnMetadataValue(EMPTY pid=1") ||
		!strings.HasSuffix(before[2], "TxnMetadataKey(export) -> null (tombstone)") {
		t.Fatalf("export after its expiry: %q", before)
	}
}

// TestShowTxnLogCompacted: with small segments
// (transaction.state.log.segment.bytes) a cleaning leaves of an expired
// id only its tombstone, stamped with its delete horizon.
func TestShowTxnLogCompacted(t *testing.T) {
	w := New(1)
	broker := "broker log.cleaner.enable=false transaction.state.log.segment.bytes=200 transactional.id.expiration.ms=60000 transaction.remove.expired.transaction.cleanup.interval.ms=1000"
	txn1 := []string{"producer q transactional.id=export", "begin q", "produce q t value=a", "commit q"}
	execAll(t, w, append([]string{broker, "topic t partitions=1"}, txn1...)...)
	// export expires; shop's first record rolls the tombstone's segment.
	execAll(t, w, "advance 61s", "producer p transactional.id=shop")
	p := w.nodes[0].Broker.Topic(txn.Topic).Partitions[12]
	if got := p.Log().Config().SegmentBytes; got != 200 {
		t.Fatalf("__transaction_state segment.bytes = %d, want 200", got)
	}
	execAll(t, w, "compact b0 __transaction_state-12")
	got := viewLines(execAll(t, w, "show txn-log export"))
	want := "offset 4: TxnMetadataKey(export) -> null (tombstone) delete_horizon=87461000"
	if len(got) != 2 || got[1] != want {
		t.Fatalf("export after a cleaning: %q, want the header and %q", got, want)
	}
}

// TestRestartedLine: a restarted broker lists the partitions with records
// and counts the empty ones.
func TestRestartedLine(t *testing.T) {
	w := New(1)
	execAll(t, w, "broker log.flush.interval.messages=1", "topic t partitions=3", "producer p", "produce p t partition=1 value=a")
	out := execAll(t, w, "crash b0", "restart b0")
	if !strings.Contains(out, "restarted: t-1 leo=1, 2 empty partitions\n") {
		t.Fatalf("restart: %q", out)
	}
	w = New(1)
	if out := execAll(t, w, "broker", "crash b0", "restart b0"); !strings.HasSuffix(out, "restarted\n") {
		t.Fatalf("restart with no topic: %q", out)
	}
}
