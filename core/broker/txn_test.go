package broker

import (
	"path"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/record"
)

// idemBatch is a batch from producer pid/epoch starting at sequence seq.
func idemBatch(pid int64, epoch int16, seq int32, txn bool, values ...string) []byte {
	hdr := record.NewBatchHeader(1000)
	hdr.ProducerID, hdr.ProducerEpoch, hdr.BaseSequence, hdr.Transactional = pid, epoch, seq, txn
	bl := record.NewBuilder(hdr)
	for _, v := range values {
		bl.Add(nil, []byte(v), 0)
	}
	return bl.Build()
}

// produce sends one batch to t-0 and returns the partition's answer.
func (h *harness) produce(batch []byte) kmsg.ProduceResponseTopicPartition {
	h.t.Helper()
	return call[*kmsg.ProduceResponse](h, produceReq("t", 0, -1, batch)).Topics[0].Partitions[0]
}

func (h *harness) mustProduce(batch []byte, wantBase int64) {
	h.t.Helper()
	if p := h.produce(batch); p.ErrorCode != 0 || p.BaseOffset != wantBase {
		h.t.Fatalf("produce: %v base %d, want base %d", kerr.ErrorForCode(p.ErrorCode), p.BaseOffset, wantBase)
	}
}

// fetchAt fetches t-0 from offset at an isolation level (1 = read_committed).
func (h *harness) fetchAt(offset int64, isolation int8) kmsg.FetchResponseTopicPartition {
	h.t.Helper()
	req := fetchReq("t", 0, offset, 0, 0)
	req.IsolationLevel = isolation
	return call[*kmsg.FetchResponse](h, req).Topics[0].Partitions[0]
}

// offsetsIn lists the offsets of the data records in a fetched record set.
func offsetsIn(t *testing.T, data []byte) (data_, control []int64) {
	t.Helper()
	it := record.NewIter(data)
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		for o := b.BaseOffset(); o <= b.LastOffset(); o++ {
			if b.IsControl() {
				control = append(control, o)
			} else {
				data_ = append(data_, o)
			}
		}
	}
	return data_, control
}

func markerReq(pid int64, epoch int16, commit bool, coordEpoch int32) *kmsg.WriteTxnMarkersRequest {
	req := kmsg.NewPtrWriteTxnMarkersRequest()
	req.SetVersion(1)
	m := kmsg.NewWriteTxnMarkersRequestMarker()
	m.ProducerID, m.ProducerEpoch, m.Committed, m.CoordinatorEpoch = pid, epoch, commit, coordEpoch
	mt := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	mt.Topic, mt.Partitions = "t", []int32{0}
	m.Topics = append(m.Topics, mt)
	req.Markers = append(req.Markers, m)
	return req
}

func (h *harness) marker(pid int64, epoch int16, commit bool, coordEpoch int32) int16 {
	h.t.Helper()
	out := h.send(markerReq(pid, epoch, commit, coordEpoch))
	if len(out) == 0 { // waiting for the sync flush.messages asks for
		if err := h.b.Commit(); err != nil {
			h.t.Fatal(err)
		}
		out = h.answers()
	}
	if len(out) != 1 {
		h.t.Fatalf("WriteTxnMarkers: %d responses", len(out))
	}
	return out[0].Msg.(*kmsg.WriteTxnMarkersResponse).Markers[0].Topics[0].Partitions[0].ErrorCode
}

func TestIdempotentProduce(t *testing.T) {
	h := newHarness(t, rawPartitions)
	h.createTopic("t", 1, nil)
	h.mustProduce(idemBatch(7, 0, 0, false, "a", "b", "c"), 0)
	h.mustProduce(idemBatch(7, 0, 3, false, "d"), 3)
	// The ack of the first batch was lost; the client retries it.
	h.mustProduce(idemBatch(7, 0, 0, false, "a", "b", "c"), 0)
	h.mustProduce(idemBatch(7, 0, 3, false, "d"), 3)
	if leo := h.b.topics["t"].Partitions[0].log.EndOffset(); leo != 4 {
		t.Fatalf("log end %d after retries, want 4 (stored once)", leo)
	}
	cases := []struct {
		name  string
		batch []byte
		code  int16
	}{
		{"gap", idemBatch(7, 0, 5, false, "x"), kerr.OutOfOrderSequenceNumber.Code},
		{"overlap", idemBatch(7, 0, 2, false, "x", "y"), kerr.OutOfOrderSequenceNumber.Code},
		{"new epoch not at 0", idemBatch(7, 1, 4, false, "x"), kerr.OutOfOrderSequenceNumber.Code},
		{"plain producer unaffected", batchOf("p"), 0},
		{"new epoch at 0 (KIP-360 bump)", idemBatch(7, 1, 0, false, "x"), 0},
		{"stale epoch", idemBatch(7, 0, 4, false, "x"), kerr.InvalidProducerEpoch.Code},
		{"unknown producer, any sequence", idemBatch(8, 0, 100, false, "x"), 0},
	}
	for _, c := range cases {
		if p := h.produce(c.batch); p.ErrorCode != c.code {
			t.Errorf("%s: %v, want %v", c.name, kerr.ErrorForCode(p.ErrorCode), kerr.ErrorForCode(c.code))
		}
	}
	f := h.fetchAt(0, 0)
	if got, _ := offsetsIn(t, f.RecordBatches); len(got) != 7 {
		t.Fatalf("fetched offsets %v, want 7 records", got)
	}
}

func TestTransactionsOnPartition(t *testing.T) {
	h := newHarness(t, rawPartitions)
	h.createTopic("t", 1, nil)
	h.mustProduce(batchOf("plain"), 0)
	h.mustProduce(idemBatch(5, 0, 0, true, "t1", "t2"), 1) // 1..2, open
	h.mustProduce(batchOf("plain2"), 3)

	// read_committed stops at the open transaction; read_uncommitted does not.
	rc := h.fetchAt(0, 1)
	if rc.HighWatermark != 4 || rc.LastStableOffset != 1 {
		t.Fatalf("hw %d lso %d, want 4 and 1", rc.HighWatermark, rc.LastStableOffset)
	}
	if got, _ := offsetsIn(t, rc.RecordBatches); len(got) != 1 || got[0] != 0 {
		t.Fatalf("read_committed got %v, want [0]", got)
	}
	if got, _ := offsetsIn(t, h.fetchAt(0, 0).RecordBatches); len(got) != 4 {
		t.Fatalf("read_uncommitted got %v", got)
	}
	if got := h.listLatest(1); got != 1 {
		t.Fatalf("ListOffsets latest read_committed %d, want 1", got)
	}
	// A plain batch from the producer inside its transaction is refused.
	if p := h.produce(idemBatch(5, 0, 2, false, "x")); p.ErrorCode != kerr.InvalidTxnState.Code {
		t.Fatalf("non-transactional batch in a transaction: %v", kerr.ErrorForCode(p.ErrorCode))
	}

	// A waiting read_committed fetch wakes when the commit marker lands.
	wait := fetchReq("t", 0, 1, 1, 5000)
	wait.IsolationLevel = 1
	if out := h.send(wait); len(out) != 0 {
		t.Fatalf("read_committed fetch at the LSO answered at once")
	}
	out := h.send(markerReq(5, 0, true, 0))
	if len(out) != 2 {
		t.Fatalf("%d responses, want the woken fetch and the marker's", len(out))
	}
	woken, ok := out[0].Msg.(*kmsg.FetchResponse)
	if !ok || out[1].Msg.(*kmsg.WriteTxnMarkersResponse).Markers[0].Topics[0].Partitions[0].ErrorCode != 0 {
		t.Fatalf("responses %v", out)
	}
	if data, _ := offsetsIn(t, woken.Topics[0].Partitions[0].RecordBatches); len(data) != 3 {
		t.Fatalf("woken fetch got %v", data)
	}
	rc = h.fetchAt(1, 1)
	if rc.LastStableOffset != 5 || len(rc.AbortedTransactions) != 0 {
		t.Fatalf("after commit: lso %d aborted %v", rc.LastStableOffset, rc.AbortedTransactions)
	}
	if data, ctl := offsetsIn(t, rc.RecordBatches); len(data) != 3 || len(ctl) != 1 || ctl[0] != 4 {
		t.Fatalf("after commit: data %v control %v", data, ctl)
	}

	// An aborted transaction: listed for read_committed, data visible to both.
	h.mustProduce(idemBatch(6, 0, 0, true, "a1", "a2"), 5)
	h.mustProduce(idemBatch(5, 0, 2, true, "t3"), 7) // 5's next transaction
	if code := h.marker(6, 0, false, 0); code != 0 {
		t.Fatalf("abort marker: %v", kerr.ErrorForCode(code))
	}
	rc = h.fetchAt(5, 1)
	if rc.LastStableOffset != 7 {
		t.Fatalf("lso %d, want 7 (producer 5 still open)", rc.LastStableOffset)
	}
	if len(rc.AbortedTransactions) != 1 || rc.AbortedTransactions[0].ProducerID != 6 || rc.AbortedTransactions[0].FirstOffset != 5 {
		t.Fatalf("aborted transactions %+v", rc.AbortedTransactions)
	}
	if data, _ := offsetsIn(t, rc.RecordBatches); len(data) != 2 {
		t.Fatalf("read_committed returns the aborted batch for the client to drop: %v", data)
	}
	if ru := h.fetchAt(5, 0); ru.AbortedTransactions != nil {
		t.Fatalf("read_uncommitted got aborted transactions %v", ru.AbortedTransactions)
	}
	p := h.b.topics["t"].Partitions[0]
	if got := p.log.AbortedTxnEntries(0); len(got) != 1 || got[0] != (log.AbortedTxn{ProducerID: 6, FirstOffset: 5, LastOffset: 8, LastStableOffset: 7}) {
		t.Fatalf(".txnindex %+v", got)
	}
	if _, err := h.st.ReadFile(path.Join(p.dir(), log.FileName(0, log.TxnIndexSuffix))); err != nil {
		t.Fatal(err)
	}

	// Fencing: a zombie coordinator's marker, a zombie producer's batch.
	if code := h.marker(5, 0, true, 3); code != 0 {
		t.Fatalf("marker with a newer coordinator epoch: %v", kerr.ErrorForCode(code))
	}
	if code := h.marker(5, 0, true, 2); code != kerr.TransactionCoordinatorFenced.Code {
		t.Fatalf("zombie coordinator: %v", kerr.ErrorForCode(code))
	}
	h.mustProduce(idemBatch(5, 1, 0, true, "new instance"), 10) // epoch bumped by InitProducerId
	if pp := h.produce(idemBatch(5, 0, 3, true, "zombie")); pp.ErrorCode != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("zombie producer: %v", kerr.ErrorForCode(pp.ErrorCode))
	}
	if code := h.marker(5, 0, false, 3); code != kerr.InvalidProducerEpoch.Code {
		t.Fatalf("marker with a stale producer epoch: %v", kerr.ErrorForCode(code))
	}

	// DescribeProducers shows it all.
	dp := kmsg.NewPtrDescribeProducersRequest() // v0
	dt := kmsg.NewDescribeProducersRequestTopic()
	dt.Topic, dt.Partitions = "t", []int32{0, 1}
	dp.Topics = append(dp.Topics, dt)
	dr := call[*kmsg.DescribeProducersResponse](h, dp).Topics[0]
	if dr.Partitions[1].ErrorCode != kerr.UnknownTopicOrPartition.Code {
		t.Fatalf("partition 1: %v", kerr.ErrorForCode(dr.Partitions[1].ErrorCode))
	}
	ap := dr.Partitions[0].ActiveProducers
	if len(ap) != 2 || ap[0].ProducerID != 5 || ap[0].ProducerEpoch != 1 || ap[0].LastSequence != 0 ||
		ap[0].CurrentTxnStartOffset != 10 || ap[0].CoordinatorEpoch != 3 ||
		ap[1].ProducerID != 6 || ap[1].CurrentTxnStartOffset != -1 || ap[1].LastSequence != 1 {
		t.Fatalf("active producers %+v", ap)
	}
}

func (h *harness) listLatest(isolation int8) int64 {
	h.t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	req.SetVersion(4)
	req.IsolationLevel = isolation
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = "t"
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp = 0, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return call[*kmsg.ListOffsetsResponse](h, req).Topics[0].Partitions[0].Offset
}

// TestProducerStateSurvivesRestart: after a clean close (snapshot at the
// log end) and after a crash (snapshots at rolls, then a replay of the
// log), a retried batch is still recognised, an open transaction still
// holds the LSO back, and aborted transactions are still listed. The
// .txnindex and the snapshots are rebuilt when they are gone.
func TestProducerStateSurvivesRestart(t *testing.T) {
	for _, crash := range []bool{false, true} {
		name := map[bool]string{false: "clean", true: "crash"}[crash]
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, rawPartitions)
			// Small segments: snapshots at every roll; every batch synced.
			h.createTopic("t", 1, map[string]string{"segment.bytes": "300", "flush.messages": "1"})
			restart := func() {
				t.Helper()
				if err := h.b.Commit(); err != nil {
					t.Fatal(err)
				}
				if crash {
					h.st.Crash()
				} else if err := h.b.Close(); err != nil {
					t.Fatal(err)
				}
				h.open()
			}
			send := func(batch []byte) kmsg.ProduceResponseTopicPartition {
				t.Helper()
				out := h.send(produceReq("t", 0, -1, batch))
				if len(out) == 0 {
					if err := h.b.Commit(); err != nil {
						t.Fatal(err)
					}
					out = h.answers()
				}
				return out[0].Msg.(*kmsg.ProduceResponse).Topics[0].Partitions[0]
			}
			var bases []int64
			for i := range 10 {
				p := send(idemBatch(1, 0, int32(i*2), false, "x", "y"))
				if p.ErrorCode != 0 {
					t.Fatal(kerr.ErrorForCode(p.ErrorCode))
				}
				bases = append(bases, p.BaseOffset)
			}
			send(idemBatch(2, 0, 0, true, "aborted"))        // 20
			send(idemBatch(3, 0, 0, true, "open"))           // 21
			if code := h.marker(2, 0, false, 1); code != 0 { // 22
				t.Fatal(kerr.ErrorForCode(code))
			}
			h.b.Commit()
			p := h.b.topics["t"].Partitions[0]
			if len(p.log.SnapshotOffsets()) == 0 {
				t.Fatal("no snapshot at any roll")
			}
			check := func(when string) {
				t.Helper()
				p := h.b.topics["t"].Partitions[0]
				leo := p.log.EndOffset()
				if leo != 23 {
					t.Fatalf("%s: log end %d, want 23", when, leo)
				}
				// The last five batches of producer 1 are still duplicates.
				for i := 5; i < 10; i++ {
					if r := send(idemBatch(1, 0, int32(i*2), false, "x", "y")); r.ErrorCode != 0 || r.BaseOffset != bases[i] {
						t.Fatalf("%s: retry of batch %d: %v base %d, want %d", when, i, kerr.ErrorForCode(r.ErrorCode), r.BaseOffset, bases[i])
					}
				}
				if r := send(idemBatch(1, 0, 21, false, "gap")); r.ErrorCode != kerr.OutOfOrderSequenceNumber.Code {
					t.Fatalf("%s: gap: %v", when, kerr.ErrorForCode(r.ErrorCode))
				}
				if p.log.EndOffset() != leo {
					t.Fatalf("%s: retries appended", when)
				}
				rc := h.fetchAt(20, 1)
				if rc.LastStableOffset != 21 {
					t.Fatalf("%s: lso %d, want 21", when, rc.LastStableOffset)
				}
				if len(rc.AbortedTransactions) != 1 || rc.AbortedTransactions[0].ProducerID != 2 {
					t.Fatalf("%s: aborted %+v", when, rc.AbortedTransactions)
				}
			}
			check("before restart")
			restart()
			check("after restart")

			// Without snapshots and .txnindex files, a full replay rebuilds both.
			p = h.b.topics["t"].Partitions[0]
			if err := h.b.Close(); err != nil {
				t.Fatal(err)
			}
			names, _ := h.st.List(p.dir())
			for _, n := range names {
				if path.Ext(n) == log.SnapshotSuffix || path.Ext(n) == log.TxnIndexSuffix {
					if err := h.st.Remove(path.Join(p.dir(), n)); err != nil {
						t.Fatal(err)
					}
				}
			}
			h.open()
			check("after losing snapshots and .txnindex")

			// The open transaction commits after all that.
			if code := h.marker(3, 0, true, 1); code != 0 {
				t.Fatal(kerr.ErrorForCode(code))
			}
			if rc := h.fetchAt(21, 1); rc.LastStableOffset != rc.HighWatermark {
				t.Fatalf("lso %d hw %d after commit", rc.LastStableOffset, rc.HighWatermark)
			}
		})
	}
}

// TestCorruptTxnIndexRebuilt: a .txnindex that fails its checks at Open is
// deleted, and the replay from the snapshot below its segment puts the
// entries back, even though later snapshots exist.
func TestCorruptTxnIndexRebuilt(t *testing.T) {
	h := newHarness(t, rawPartitions)
	h.createTopic("t", 1, map[string]string{"segment.bytes": "300"})
	for i := range 4 {
		h.mustProduce(idemBatch(1, 0, int32(i), false, "filler"), int64(i))
	}
	h.mustProduce(idemBatch(2, 0, 0, true, "doomed"), 4)
	if code := h.marker(2, 0, false, 0); code != 0 {
		t.Fatal(kerr.ErrorForCode(code))
	}
	p := h.b.topics["t"].Partitions[0]
	segs := p.log.Segments()
	var base int64 = -1
	for _, s := range segs {
		if len(s.AbortedTxns) > 0 {
			base = s.BaseOffset
		}
	}
	if base < 0 {
		t.Fatalf("no .txnindex entry: %+v", segs)
	}
	want := p.log.AbortedTxnEntries(base)
	for i := range 6 {
		h.mustProduce(idemBatch(1, 0, int32(4+i), false, "more filler"), int64(6+i))
	}
	if n := len(p.log.Segments()); n < 3 || p.log.Segments()[n-1].BaseOffset <= base {
		t.Fatalf("want the abort in an older segment, have %d segments", n)
	}
	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	name := path.Join(p.dir(), log.FileName(base, log.TxnIndexSuffix))
	if err := h.st.WriteFile(name, []byte("torn")); err != nil {
		t.Fatal(err)
	}
	h.open()
	p = h.b.topics["t"].Partitions[0]
	if got := p.log.AbortedTxnEntries(base); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("rebuilt .txnindex %+v, want %+v", got, want)
	}
	if rc := h.fetchAt(4, 1); len(rc.AbortedTransactions) != 1 || rc.AbortedTransactions[0].FirstOffset != 4 {
		t.Fatalf("aborted transactions %+v", rc.AbortedTransactions)
	}
}
