package producer

import (
	"bytes"
	"math"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/gregor-kafka/gregor/core/record"
)

// batch builds a batch of n records for pid/epoch starting at seq, stamped
// at offset (as the log would).
func batch(pid int64, epoch int16, seq int32, n int, offset int64, txn bool) record.Batch {
	h := record.NewBatchHeader(1000)
	h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.Transactional = pid, epoch, seq, txn
	bl := record.NewBuilder(h)
	for i := range n {
		bl.Add(nil, []byte{byte(i)}, int64(i))
	}
	b := bl.Build()
	b.SetBaseOffset(offset)
	return b
}

func marker(pid int64, epoch int16, commit bool, coord int32, offset int64) record.Batch {
	b := MarkerBatch(Marker{ProducerID: pid, ProducerEpoch: epoch, Commit: commit, CoordinatorEpoch: coord}, 2000, 0)
	b.SetBaseOffset(offset)
	return b
}

// applyAll applies batches in order, failing the test on error.
func applyAll(t *testing.T, s *State, bs ...record.Batch) {
	t.Helper()
	for _, b := range bs {
		if _, _, err := s.Apply(b); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckAppend(t *testing.T) {
	const pid = 7
	// History: epoch 3, batches seq 0-4 @0, 5-9 @5, 10-14 @10.
	history := []record.Batch{batch(pid, 3, 0, 5, 0, false), batch(pid, 3, 5, 5, 5, false), batch(pid, 3, 10, 5, 10, false)}
	cases := []struct {
		name    string
		history []record.Batch
		in      record.Batch
		code    int16
		dupAt   int64 // -1: not a duplicate
	}{
		{"unknown producer, seq 0", nil, batch(pid, 0, 0, 1, 0, false), 0, -1},
		{"unknown producer, any seq (KIP-360)", nil, batch(pid, 0, 42, 1, 0, false), 0, -1},
		{"next in sequence", history, batch(pid, 3, 15, 2, 0, false), 0, -1},
		{"duplicate of last", history, batch(pid, 3, 10, 5, 0, false), 0, 10},
		{"duplicate of first", history, batch(pid, 3, 0, 5, 0, false), 0, 0},
		{"overlapping, not exact: out of order", history, batch(pid, 3, 6, 4, 0, false), kerr.OutOfOrderSequenceNumber.Code, -1},
		{"gap", history, batch(pid, 3, 16, 1, 0, false), kerr.OutOfOrderSequenceNumber.Code, -1},
		{"stale epoch", history, batch(pid, 2, 15, 1, 0, false), kerr.InvalidProducerEpoch.Code, -1},
		{"stale epoch duplicate-looking", history, batch(pid, 2, 10, 5, 0, false), kerr.InvalidProducerEpoch.Code, -1},
		{"bumped epoch at seq 0", history, batch(pid, 4, 0, 1, 0, false), 0, -1},
		{"bumped epoch not at 0", history, batch(pid, 4, 15, 1, 0, false), kerr.OutOfOrderSequenceNumber.Code, -1},
		{"no sequence", nil, batch(pid, 0, -1, 1, 0, false), kerr.InvalidRecord.Code, -1},
		{"transactional without producer id", nil, batch(-1, -1, -1, 1, 0, true), kerr.InvalidRecord.Code, -1},
		{"plain batch", nil, batch(-1, -1, -1, 1, 0, false), 0, -1},
		{"plain batch inside open txn", []record.Batch{batch(pid, 0, 0, 1, 0, true)}, batch(pid, 0, 1, 1, 0, false), kerr.InvalidTxnState.Code, -1},
		{"txn batch inside open txn", []record.Batch{batch(pid, 0, 0, 1, 0, true)}, batch(pid, 0, 1, 1, 0, true), 0, -1},
		{"after marker, sequence continues", []record.Batch{batch(pid, 0, 0, 2, 0, true), marker(pid, 0, true, 0, 2)}, batch(pid, 0, 2, 1, 0, true), 0, -1},
		{"after marker only, seq must be 0", []record.Batch{marker(pid, 1, false, 0, 0)}, batch(pid, 1, 3, 1, 0, false), kerr.OutOfOrderSequenceNumber.Code, -1},
		{"wrap at MaxInt32", []record.Batch{batch(pid, 0, math.MaxInt32-1, 2, 0, false)}, batch(pid, 0, 0, 1, 0, false), 0, -1},
		{"no wrap to 1", []record.Batch{batch(pid, 0, math.MaxInt32-1, 2, 0, false)}, batch(pid, 0, 1, 1, 0, false), kerr.OutOfOrderSequenceNumber.Code, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New()
			applyAll(t, s, c.history...)
			v := s.CheckAppend(c.in)
			if v.ErrorCode != c.code {
				t.Fatalf("code %d (%s), want %d", v.ErrorCode, v.Message, c.code)
			}
			switch {
			case c.dupAt < 0 && v.Duplicate != nil:
				t.Fatalf("unexpected duplicate %+v", *v.Duplicate)
			case c.dupAt >= 0 && (v.Duplicate == nil || v.Duplicate.FirstOffset != c.dupAt):
				t.Fatalf("duplicate %+v, want at %d", v.Duplicate, c.dupAt)
			}
		})
	}
}

func TestOnlyFiveBatchesRemembered(t *testing.T) {
	s := New()
	for i := range 6 {
		applyAll(t, s, batch(1, 0, int32(i), 1, int64(i), false))
	}
	if v := s.CheckAppend(batch(1, 0, 0, 1, 0, false)); v.Duplicate != nil || v.ErrorCode != kerr.OutOfOrderSequenceNumber.Code {
		t.Fatalf("sixth-oldest batch: %+v", v)
	}
	if v := s.CheckAppend(batch(1, 0, 1, 1, 0, false)); v.Duplicate == nil || v.Duplicate.FirstOffset != 1 {
		t.Fatalf("fifth-oldest batch: %+v", v)
	}
}

func TestCheckMarker(t *testing.T) {
	s := New()
	applyAll(t, s, batch(1, 5, 0, 1, 0, true), marker(1, 5, false, 3, 1), batch(1, 5, 1, 1, 2, true))
	cases := []struct {
		name string
		m    Marker
		code int16
	}{
		{"current", Marker{ProducerID: 1, ProducerEpoch: 5, CoordinatorEpoch: 3}, 0},
		{"newer coordinator", Marker{ProducerID: 1, ProducerEpoch: 5, CoordinatorEpoch: 4}, 0},
		{"zombie coordinator", Marker{ProducerID: 1, ProducerEpoch: 5, CoordinatorEpoch: 2}, kerr.TransactionCoordinatorFenced.Code},
		{"stale producer epoch", Marker{ProducerID: 1, ProducerEpoch: 4, CoordinatorEpoch: 3}, kerr.InvalidProducerEpoch.Code},
		{"TV2 same epoch while open", Marker{ProducerID: 1, ProducerEpoch: 5, CoordinatorEpoch: 3, TransactionVersion: 2}, kerr.InvalidProducerEpoch.Code},
		{"TV2 bumped epoch", Marker{ProducerID: 1, ProducerEpoch: 6, CoordinatorEpoch: 3, TransactionVersion: 2}, 0},
		{"unknown producer", Marker{ProducerID: 9, ProducerEpoch: 0, CoordinatorEpoch: 0}, 0},
	}
	for _, c := range cases {
		if code, msg := s.CheckMarker(c.m); code != c.code {
			t.Errorf("%s: code %d (%s), want %d", c.name, code, msg, c.code)
		}
	}
	// TV2: the retry of a marker already written (no open txn, same epoch).
	applyAll(t, s, marker(1, 6, true, 3, 3))
	if code, _ := s.CheckMarker(Marker{ProducerID: 1, ProducerEpoch: 6, CoordinatorEpoch: 3, TransactionVersion: 2}); code != 0 {
		t.Errorf("TV2 marker retry refused: %d", code)
	}
}

func TestTransactionsAndLSO(t *testing.T) {
	s := New()
	applyAll(t, s,
		batch(-1, -1, -1, 2, 0, false), // 0-1 plain
		batch(1, 0, 0, 2, 2, true),     // 2-3 txn of 1
		batch(2, 0, 0, 1, 4, true),     // 4 txn of 2
		batch(1, 0, 2, 1, 5, true),     // 5 txn of 1
	)
	if got := s.LastStableOffset(6); got != 2 {
		t.Fatalf("LSO %d, want 2", got)
	}
	c, done, err := s.Apply(marker(1, 0, false, 0, 6))
	if err != nil || !done {
		t.Fatal(done, err)
	}
	want := CompletedTxn{ProducerID: 1, FirstOffset: 2, LastOffset: 6, Aborted: true, LastStableOffset: 4}
	if c != want {
		t.Fatalf("completed %+v, want %+v", c, want)
	}
	// The marker at 6 is not below hw=6 yet: the LSO stays at 2.
	if got := s.LastStableOffset(6); got != 2 {
		t.Fatalf("LSO before the marker is replicated %d, want 2", got)
	}
	if got := s.LastStableOffset(7); got != 4 {
		t.Fatalf("LSO %d, want 4", got)
	}
	c, _, _ = s.Apply(marker(2, 0, true, 0, 7))
	if c.Aborted || c.LastStableOffset != 8 {
		t.Fatalf("commit %+v", c)
	}
	if got := s.LastStableOffset(8); got != 8 {
		t.Fatalf("LSO %d, want 8", got)
	}
	// An empty transaction's marker completes nothing.
	if _, done, _ := s.Apply(marker(3, 0, true, 0, 8)); done {
		t.Fatal("marker without data completed a transaction")
	}
	e, _ := s.Get(1)
	if e.TxnFirstOffset != -1 || e.LastSeq() != 2 || e.CoordinatorEpoch != 0 {
		t.Fatalf("entry %+v", e)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	s := New()
	for i := range 7 {
		applyAll(t, s, batch(1, 2, int32(i*3), 3, int64(i*3), false))
	}
	applyAll(t, s, batch(2, 0, 0, 1, 30, true), marker(3, 1, false, 4, 31), batch(4, 0, 0, 1, 32, true))
	data := s.Snapshot()
	got, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Entries(), s.Entries()) || !reflect.DeepEqual(got.Ongoing(), s.Ongoing()) {
		t.Fatalf("loaded %+v\nwant %+v", got.Entries(), s.Entries())
	}
	if !bytes.Equal(got.Snapshot(), data) {
		t.Fatal("snapshot not stable")
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)-1] ^= 1
	if _, err := Load(bad); err == nil {
		t.Fatal("flipped bit loaded")
	}
	if _, err := Load(data[:len(data)-3]); err == nil {
		t.Fatal("truncated snapshot loaded")
	}
}

func TestExpire(t *testing.T) {
	s := New()
	applyAll(t, s, batch(1, 0, 0, 1, 0, false), batch(2, 0, 0, 1, 1, true))
	// Both last wrote at timestamp 1000 (+0).
	if gone := s.Expire(1000+100, 100); !reflect.DeepEqual(gone, []int64{1}) {
		t.Fatalf("expired %v, want [1] (2 has an open transaction)", gone)
	}
	if v := s.CheckAppend(batch(1, 0, 9, 1, 0, false)); v.ErrorCode != 0 {
		t.Fatalf("expired producer refused: %+v", v)
	}
}

func TestMarkerRoundTrip(t *testing.T) {
	for _, commit := range []bool{false, true} {
		b := MarkerBatch(Marker{ProducerID: 5, ProducerEpoch: 2, Commit: commit, CoordinatorEpoch: 77}, 123, 4)
		if err := record.Validate(b); err != nil {
			t.Fatal(err)
		}
		if !b.IsControl() || !b.IsTransactional() || b.ProducerID() != 5 || b.ProducerEpoch() != 2 || b.BaseSequence() != -1 {
			t.Fatalf("header of %v marker", commit)
		}
		kind, ce, err := DecodeMarker(b)
		want := ControlAbort
		if commit {
			want = ControlCommit
		}
		if err != nil || kind != want || ce != 77 {
			t.Fatalf("decoded %d %d %v", kind, ce, err)
		}
	}
}
