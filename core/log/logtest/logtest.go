// Package logtest is the log's test suite as a function of the storage, so
// it runs on the in-memory store (core/log tests) and on real files
// (server/filestore tests) without core importing server.
package logtest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// Dir is the partition directory every case uses.
const Dir = "orders-0"

// Run runs every case on a fresh storage from newStorage.
func Run(t *testing.T, newStorage func(t *testing.T) store.Storage) {
	cases := []struct {
		name string
		fn   func(t *testing.T, st store.Storage)
	}{
		{"AppendReadAcrossRolls", testAppendReadAcrossRolls},
		{"SegmentFileNames", testSegmentFileNames},
		{"SparseIndex", testSparseIndex},
		{"ReadMiddleAndRange", testReadMiddleAndRange},
		{"ReadMaxBytesMinOne", testReadMaxBytesMinOne},
		{"ReadMaxOffset", testReadMaxOffset},
		{"OffsetForTimestamp", testOffsetForTimestamp},
		{"MaxTimestamp", testMaxTimestamp},
		{"RetentionByTime", testRetentionByTime},
		{"RetentionByBytes", testRetentionByBytes},
		{"DeleteRecordsBefore", testDeleteRecordsBefore},
		{"Reopen", testReopen},
		{"RecoverShortTail", testRecoverShortTail},
		{"RecoverFlippedCRC", testRecoverFlippedCRC},
		{"RecoverDeletedIndex", testRecoverDeletedIndex},
		{"RecoverPartialIndexEntry", testRecoverPartialIndexEntry},
		{"RecoverTornOlderSegment", testRecoverTornOlderSegment},
		{"RecoverStrayFiles", testRecoverStrayFiles},
		{"TruncateTo", testTruncateTo},
		{"RollBySegmentMs", testRollBySegmentMs},
		{"RollByIndexFull", testRollByIndexFull},
		{"FlushPolicy", testFlushPolicy},
		{"StartOffsetBeyondEnd", testStartOffsetBeyondEnd},
		{"Delete", testDelete},
		{"TxnIndex", testTxnIndex},
		{"Snapshots", testSnapshots},
		{"CompactLatestPerKey", testCompactLatestPerKey},
		{"CompactBoundedSteps", testCompactBoundedSteps},
		{"CompactRespectsBounds", testCompactRespectsBounds},
		{"CompactTransactions", testCompactTransactions},
		{"CompactCrashMidClean", testCompactCrashMidClean},
		{"CompactMapBound", testCompactMapBound},
		{"CompactTruncateIntoCleaned", testCompactTruncateIntoCleaned},
		{"CompactMaxLag", testCompactMaxLag},
		{"FollowerAppendWithGaps", testFollowerAppendWithGaps},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newStorage(t)) })
	}
}

// SmallConfig rolls every ~1 KiB and indexes every 200 bytes.
func SmallConfig() log.Config {
	c := log.DefaultConfig()
	c.SegmentBytes = 1024
	c.IndexIntervalBytes = 200
	return c
}

// Batch builds a batch of n records with timestamps ts, ts+1, ... and
// values "v<ts>-<i>".
func Batch(n int, ts int64) record.Batch {
	bl := record.NewBuilder(record.NewBatchHeader(ts))
	for i := 0; i < n; i++ {
		bl.Add([]byte(fmt.Sprintf("k%d", i)), []byte(fmt.Sprintf("v%d-%d", ts, i)), int64(i))
	}
	return bl.Build()
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Open opens the test log and fails the test on error.
func Open(t *testing.T, st store.Storage, cfg log.Config, start int64) (*log.Log, []string) {
	t.Helper()
	l, notes, err := log.Open(st, Dir, cfg, start, 0)
	if err != nil {
		t.Fatalf("Open: %v (notes %q)", err, notes)
	}
	return l, notes
}

// fill appends batches of 3 records with timestamps 1000, 1010, ...
func fill(t *testing.T, l *log.Log, batches int) {
	t.Helper()
	for i := 0; i < batches; i++ {
		if _, err := l.Append(Batch(3, 1000+int64(10*i)), 0); err != nil {
			t.Fatal(err)
		}
	}
}

// ReadAll reads every batch from the start offset to the end, checking
// that each fetch starts with the batch containing the requested offset.
func ReadAll(t *testing.T, l *log.Log) []record.Batch {
	t.Helper()
	return readBatches(t, l, false)
}

// readBatches reads the log from its start as a consumer does: each fetch
// continues after the last batch of the previous one. Offsets run on
// without gaps unless compacted, where a batch may also hold fewer
// records than offsets.
func readBatches(t *testing.T, l *log.Log, compacted bool) []record.Batch {
	t.Helper()
	validate := record.Validate
	if compacted {
		validate = record.ValidateStored
	}
	var out []record.Batch
	for off := l.StartOffset(); off < l.EndOffset(); {
		p, err := l.Read(off, 1<<20, l.EndOffset(), true)
		if err != nil {
			t.Fatalf("Read(%d): %v", off, err)
		}
		it := record.NewIter(p)
		n := 0
		for b, ok := it.Next(); ok; b, ok = it.Next() {
			if err := validate(b); err != nil {
				t.Fatalf("Read(%d) batch %d: %v", off, n, err)
			}
			if b.LastOffset() < off || !compacted && (n == 0 && b.BaseOffset() > off || n > 0 && b.BaseOffset() != off) {
				t.Fatalf("Read(%d) returned batch %d..%d", off, b.BaseOffset(), b.LastOffset())
			}
			out = append(out, b)
			off = b.LastOffset() + 1
			n++
		}
		if n == 0 || len(it.Rest()) != 0 {
			t.Fatalf("Read(%d) returned %d batches and %d stray bytes", off, n, len(it.Rest()))
		}
	}
	return out
}

func testAppendReadAcrossRolls(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer l.Close()
	for i := 0; i < 60; i++ {
		base, err := l.Append(Batch(3, int64(i)), 0)
		must(t, err)
		if base != int64(3*i) {
			t.Fatalf("batch %d got base offset %d", i, base)
		}
	}
	if l.EndOffset() != 180 || l.StartOffset() != 0 {
		t.Fatalf("start %d end %d", l.StartOffset(), l.EndOffset())
	}
	segs := l.Segments()
	if len(segs) < 3 {
		t.Fatalf("only %d segments", len(segs))
	}
	var total int64
	for i, s := range segs {
		if s.Size > 1024 {
			t.Errorf("segment %s is %d bytes, over segment.bytes", s.Name, s.Size)
		}
		if i > 0 && s.BaseOffset != segs[i-1].NextOffset {
			t.Errorf("segment %d starts at %d, previous ends at %d", i, s.BaseOffset, segs[i-1].NextOffset)
		}
		total += s.Size
	}
	if total != l.Size() {
		t.Fatalf("Size %d, segments sum %d", l.Size(), total)
	}
	got := ReadAll(t, l)
	if len(got) != 60 {
		t.Fatalf("read %d batches", len(got))
	}
	for i, b := range got {
		recs, err := b.Records()
		must(t, err)
		if want := fmt.Sprintf("v%d-2", i); string(recs[2].Value) != want {
			t.Fatalf("batch %d record 2 = %q, want %q", i, recs[2].Value, want)
		}
	}
}

func testSegmentFileNames(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer l.Close()
	fill(t, l, 30)
	names, err := st.List(Dir)
	must(t, err)
	for _, s := range l.Segments() {
		for _, suf := range []string{log.LogSuffix, log.IndexSuffix, log.TimeIndexSuffix} {
			want := fmt.Sprintf("%020d%s", s.BaseOffset, suf)
			if !contains(names, want) {
				t.Errorf("missing %s in %q", want, names)
			}
		}
	}
	if !contains(names, "00000000000000000000.log") || len(names) != 3*len(l.Segments()) {
		t.Fatalf("files %q", names)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func testSparseIndex(t *testing.T, st store.Storage) {
	cfg := log.DefaultConfig()
	cfg.IndexIntervalBytes = 300
	l, _ := Open(t, st, cfg, -1)
	defer l.Close()
	var sizes []int64
	for i := 0; i < 40; i++ {
		b := Batch(1+i%4, int64(100+i))
		sizes = append(sizes, int64(len(b)))
		_, err := l.Append(b, 0)
		must(t, err)
	}
	// Replay Kafka's rule to predict the entries.
	var want []log.IndexEntry
	var since, pos, off int64
	for i, n := range sizes {
		last := off + int64(1+i%4) - 1
		if since > cfg.IndexIntervalBytes {
			want = append(want, log.IndexEntry{Offset: last, Position: pos})
			since = 0
		}
		since += n
		pos += n
		off = last + 1
	}
	seg := l.Segments()[0]
	if len(want) == 0 || fmt.Sprint(seg.IndexEntries) != fmt.Sprint(want) {
		t.Fatalf("index entries\n got %v\nwant %v", seg.IndexEntries, want)
	}
	if len(seg.TimeIndexEntries) != len(want) {
		t.Fatalf("time index has %d entries, want %d", len(seg.TimeIndexEntries), len(want))
	}
	must(t, l.Flush(0)) // on store.IndexesAtSync, the files get the entries now
	raw, err := st.ReadFile(Dir + "/00000000000000000000.index")
	must(t, err)
	if len(raw) != 8*len(want) {
		t.Fatalf(".index is %d bytes, want %d", len(raw), 8*len(want))
	}
	traw, err := st.ReadFile(Dir + "/00000000000000000000.timeindex")
	must(t, err)
	if len(traw) != 12*len(want) {
		t.Fatalf(".timeindex is %d bytes, want %d", len(traw), 12*len(want))
	}
	// The lookup primitive reports its probes.
	e, steps := seg.LookupOffset(want[len(want)/2].Offset + 1)
	if e != want[len(want)/2] || len(steps) == 0 {
		t.Fatalf("LookupOffset = %v after %v", e, steps)
	}
}

func testReadMiddleAndRange(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer l.Close()
	fill(t, l, 50)
	for off := int64(0); off < l.EndOffset(); off++ {
		p, err := l.Read(off, 100, l.EndOffset(), true)
		must(t, err)
		b := record.Batch(p)
		if len(p) == 0 || b.BaseOffset() > off || b.LastOffset() < off {
			t.Fatalf("Read(%d) gave %d bytes", off, len(p))
		}
	}
	if p, err := l.Read(l.EndOffset(), 100, l.EndOffset(), true); err != nil || len(p) != 0 {
		t.Fatalf("Read at LEO = %d bytes, %v", len(p), err)
	}
	for _, off := range []int64{-1, l.EndOffset() + 1} {
		if _, err := l.Read(off, 100, l.EndOffset(), true); !errors.Is(err, log.ErrOffsetOutOfRange) {
			t.Fatalf("Read(%d) = %v, want ErrOffsetOutOfRange", off, err)
		}
	}
}

func testReadMaxBytesMinOne(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, log.DefaultConfig(), -1)
	defer l.Close()
	fill(t, l, 5)
	size := len(Batch(3, 1000))
	if p, _ := l.Read(0, size-1, 100, false); len(p) != 0 {
		t.Fatalf("without minOne got %d bytes", len(p))
	}
	if p, _ := l.Read(0, 10, 100, true); len(p) != size {
		t.Fatalf("with minOne got %d bytes, want %d", len(p), size)
	}
	if p, _ := l.Read(0, 2*size+size/2, 100, false); len(p) != 2*size {
		t.Fatalf("maxBytes 2.5 batches got %d bytes, want %d", len(p), 2*size)
	}
}

func testReadMaxOffset(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, log.DefaultConfig(), -1)
	defer l.Close()
	fill(t, l, 5) // batches 0-2, 3-5, ...
	for _, c := range []struct {
		off, max int64
		batches  int
	}{{0, 6, 2}, {0, 5, 1}, {0, 2, 0}, {4, 9, 2}, {4, 8, 1}, {4, 6, 1}, {6, 6, 0}, {0, 15, 5}} {
		p, err := l.Read(c.off, 1<<20, c.max, true)
		must(t, err)
		n := 0
		for it := record.NewIter(p); ; n++ {
			if _, ok := it.Next(); !ok {
				break
			}
		}
		if n != c.batches {
			t.Errorf("Read(%d, maxOffset %d) = %d batches, want %d", c.off, c.max, n, c.batches)
		}
	}
}

// bruteForceTimestamp is the spec: the first record at or after start with
// a timestamp >= ts.
func bruteForceTimestamp(t *testing.T, l *log.Log, ts int64) (int64, int64, bool) {
	for _, b := range ReadAll(t, l) {
		recs, err := b.Records()
		must(t, err)
		for _, r := range recs {
			o := b.BaseOffset() + int64(r.OffsetDelta)
			rt := b.BaseTimestamp() + r.TimestampDelta
			if b.LogAppendTime() {
				rt = b.MaxTimestamp()
			}
			if rt >= ts && o >= l.StartOffset() {
				return o, rt, true
			}
		}
	}
	return -1, -1, false
}

func testOffsetForTimestamp(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer l.Close()
	// Mostly increasing timestamps with some going backwards.
	for i := 0; i < 60; i++ {
		ts := int64(1000 + 10*i)
		if i%7 == 3 {
			ts -= 45
		}
		_, err := l.Append(Batch(3, ts), 0)
		must(t, err)
	}
	must(t, l.DeleteRecordsBefore(4))
	for ts := int64(900); ts <= 1700; ts += 3 {
		wo, wt, wok := bruteForceTimestamp(t, l, ts)
		o, rt, ok, err := l.OffsetForTimestamp(ts)
		must(t, err)
		if o != wo || rt != wt || ok != wok {
			t.Fatalf("OffsetForTimestamp(%d) = %d,%d,%v want %d,%d,%v", ts, o, rt, ok, wo, wt, wok)
		}
	}
}

func testMaxTimestamp(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer l.Close()
	if ts, off := l.MaxTimestamp(); ts != -1 || off != -1 {
		t.Fatalf("empty MaxTimestamp = %d,%d", ts, off)
	}
	fill(t, l, 20)
	bl := record.NewBuilder(record.NewBatchHeader(5000)).Add(nil, []byte("a"), 7).Add(nil, []byte("b"), 2)
	base, err := l.Append(bl.Build(), 0)
	must(t, err)
	fill(t, l, 20)
	if ts, off := l.MaxTimestamp(); ts != 5007 || off != base {
		t.Fatalf("MaxTimestamp = %d,%d want 5007,%d", ts, off, base)
	}
}

func testRetentionByTime(t *testing.T, st store.Storage) {
	cfg := SmallConfig()
	cfg.RetentionMs = 1000
	l, _ := Open(t, st, cfg, -1)
	defer l.Close()
	for i := 0; i < 60; i++ {
		_, err := l.Append(Batch(3, int64(100*i)), 0) // timestamps 0..5900
		must(t, err)
	}
	before := l.Segments()
	notes := l.EnforceRetention(5000)
	after := l.Segments()
	if len(notes) == 0 || len(after) >= len(before) {
		t.Fatalf("nothing deleted: %q", notes)
	}
	for _, s := range after[:len(after)-1] {
		if 5000-s.LargestTimestamp > 1000 {
			t.Errorf("segment %s with largest timestamp %d kept", s.Name, s.LargestTimestamp)
		}
	}
	if l.StartOffset() != after[0].BaseOffset {
		t.Fatalf("start %d, first segment %d", l.StartOffset(), after[0].BaseOffset)
	}
	if _, err := st.Open(Dir + "/" + before[0].Name); !errors.Is(err, store.ErrNotExist) {
		t.Fatalf("deleted segment file still there: %v", err)
	}
	// The active segment survives even when everything is expired.
	l.EnforceRetention(1 << 40)
	if segs := l.Segments(); len(segs) != 1 || l.StartOffset() != segs[0].BaseOffset {
		t.Fatalf("after full expiry: %d segments, start %d", len(segs), l.StartOffset())
	}
	ReadAll(t, l)
}

func testRetentionByBytes(t *testing.T, st store.Storage) {
	cfg := SmallConfig()
	cfg.RetentionMs = -1
	cfg.RetentionBytes = 2500
	l, _ := Open(t, st, cfg, -1)
	defer l.Close()
	fill(t, l, 80)
	notes := l.EnforceRetention(1 << 40)
	if len(notes) == 0 {
		t.Fatal("nothing deleted")
	}
	segs := l.Segments()
	if l.Size() < cfg.RetentionBytes || l.Size()-segs[0].Size >= cfg.RetentionBytes {
		t.Fatalf("size %d after retention.bytes %d (first segment %d)", l.Size(), cfg.RetentionBytes, segs[0].Size)
	}
	if l.StartOffset() != segs[0].BaseOffset {
		t.Fatalf("start %d, first segment %d", l.StartOffset(), segs[0].BaseOffset)
	}
}

func testDeleteRecordsBefore(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer l.Close()
	fill(t, l, 40)
	segs := l.Segments()
	target := segs[2].BaseOffset + 1
	must(t, l.DeleteRecordsBefore(target))
	if l.StartOffset() != target || l.Segments()[0].BaseOffset != segs[2].BaseOffset {
		t.Fatalf("start %d first segment %d", l.StartOffset(), l.Segments()[0].BaseOffset)
	}
	if _, err := l.Read(target-1, 100, l.EndOffset(), true); !errors.Is(err, log.ErrOffsetOutOfRange) {
		t.Fatalf("Read below start: %v", err)
	}
	must(t, l.DeleteRecordsBefore(target-1)) // moving down is a no-op
	if l.StartOffset() != target {
		t.Fatalf("start moved down to %d", l.StartOffset())
	}
	if err := l.DeleteRecordsBefore(l.EndOffset() + 1); !errors.Is(err, log.ErrOffsetOutOfRange) {
		t.Fatalf("beyond LEO: %v", err)
	}
	must(t, l.DeleteRecordsBefore(l.EndOffset()))
	if len(l.Segments()) != 1 || l.StartOffset() != l.EndOffset() {
		t.Fatalf("after deleting all: %d segments, start %d end %d", len(l.Segments()), l.StartOffset(), l.EndOffset())
	}
}

func testReopen(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 45)
	must(t, l.DeleteRecordsBefore(7))
	want := fmt.Sprint(l.Segments())
	start, end := l.StartOffset(), l.EndOffset()
	must(t, l.Close())
	if _, err := l.Append(Batch(1, 0), 0); !errors.Is(err, log.ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	l2, notes := Open(t, st, SmallConfig(), start)
	defer l2.Close()
	if len(notes) != 0 {
		t.Fatalf("clean reopen produced notes %q", notes)
	}
	if l2.StartOffset() != start || l2.EndOffset() != end {
		t.Fatalf("reopened start %d end %d, want %d %d", l2.StartOffset(), l2.EndOffset(), start, end)
	}
	if got := fmt.Sprint(l2.Segments()); got != want {
		t.Fatalf("segments differ after reopen\n got %s\nwant %s", got, want)
	}
	base, err := l2.Append(Batch(2, 9999), 0)
	must(t, err)
	if base != end {
		t.Fatalf("append after reopen at %d, want %d", base, end)
	}
	ReadAll(t, l2)
}

func testTruncateTo(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer l.Close()
	fill(t, l, 40)
	segs := l.Segments()
	cut := segs[1].BaseOffset + 6 // a batch boundary (batches of 3)
	must(t, l.TruncateTo(cut))
	if l.EndOffset() != cut || len(l.Segments()) != 2 {
		t.Fatalf("after TruncateTo(%d): LEO %d, %d segments", cut, l.EndOffset(), len(l.Segments()))
	}
	must(t, l.TruncateTo(cut-2)) // inside a batch: the whole batch goes
	if l.EndOffset() != cut-3 {
		t.Fatalf("LEO %d, want %d", l.EndOffset(), cut-3)
	}
	for _, e := range l.Segments()[1].IndexEntries {
		if e.Offset >= l.EndOffset() {
			t.Fatalf("index entry %v survived truncation to %d", e, l.EndOffset())
		}
	}
	fill(t, l, 10)
	ReadAll(t, l)
	if got := len(ReadAll(t, l)); got != (int(cut)-3)/3+10 {
		t.Fatalf("%d batches after truncate+append", got)
	}
	l2, notes := Open(t, st, SmallConfig(), 0)
	_ = notes
	l2.Close()
	must(t, l.TruncateTo(0))
	if l.EndOffset() != 0 || len(l.Segments()) != 1 {
		t.Fatalf("TruncateTo(0): LEO %d, %d segments", l.EndOffset(), len(l.Segments()))
	}
}

func testRollBySegmentMs(t *testing.T, st store.Storage) {
	cfg := log.DefaultConfig()
	cfg.SegmentMs = 100
	l, _ := Open(t, st, cfg, -1)
	defer l.Close()
	for _, now := range []int64{0, 50, 100, 101, 150, 250} {
		_, err := l.Append(Batch(1, now), now)
		must(t, err)
	}
	// First segment: appends at 0,50,100 (101-0 > 100 rolls); second: 101,150; third: 250.
	if n := len(l.Segments()); n != 3 {
		t.Fatalf("%d segments, want 3: %v", n, l.Segments())
	}
}

func testRollByIndexFull(t *testing.T, st store.Storage) {
	cfg := log.DefaultConfig()
	cfg.IndexIntervalBytes = 1
	cfg.SegmentIndexBytes = 24 // 3 offset entries, 2 time entries
	l, _ := Open(t, st, cfg, -1)
	defer l.Close()
	fill(t, l, 10)
	for _, s := range l.Segments() {
		if len(s.IndexEntries) > 3 || len(s.TimeIndexEntries) > 3 {
			t.Fatalf("segment %s has %d/%d entries", s.Name, len(s.IndexEntries), len(s.TimeIndexEntries))
		}
	}
	if len(l.Segments()) < 3 {
		t.Fatalf("only %d segments", len(l.Segments()))
	}
}

func testFlushPolicy(t *testing.T, st store.Storage) {
	cfg := log.DefaultConfig()
	cfg.FlushMessages = 5
	cfg.FlushMs = 1000
	l, _ := Open(t, st, cfg, -1)
	defer l.Close()
	if l.NeedsFlush(1 << 40) {
		t.Fatal("empty log needs a flush")
	}
	fill(t, l, 1) // 3 messages
	if l.NeedsFlush(10) {
		t.Fatal("3 messages need a flush")
	}
	if !l.NeedsFlush(1000) {
		t.Fatal("flush.ms elapsed but no flush needed")
	}
	fill(t, l, 1)
	if !l.NeedsFlush(10) {
		t.Fatal("6 messages need no flush")
	}
	must(t, l.Flush(20))
	if l.NeedsFlush(1019) {
		t.Fatal("needs flush right after Flush")
	}
}

func testStartOffsetBeyondEnd(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 3)
	must(t, l.Close())
	l2, notes := Open(t, st, SmallConfig(), 500)
	defer l2.Close()
	expectNote(t, notes, "beyond the log end")
	if l2.StartOffset() != 500 || l2.EndOffset() != 500 {
		t.Fatalf("start %d end %d", l2.StartOffset(), l2.EndOffset())
	}
	base, err := l2.Append(Batch(1, 0), 0)
	must(t, err)
	if base != 500 || l2.Segments()[0].Name != "00000000000000000500.log" {
		t.Fatalf("base %d segments %v", base, l2.Segments())
	}
}

func testDelete(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	fill(t, l, 10)
	must(t, l.Delete())
	if names, _ := st.List(Dir); len(names) != 0 {
		t.Fatalf("files left: %q", names)
	}
	if root, _ := st.List(""); contains(root, Dir) {
		t.Fatalf("directory left: %q", root)
	}
}
