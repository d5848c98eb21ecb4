package logtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// CompactConfig is SmallConfig with cleanup.policy=compact and every
// dirty byte worth a pass.
func CompactConfig() log.Config {
	c := SmallConfig()
	c.Compact, c.Delete = true, false
	c.MinCleanableDirtyRatio = 0
	c.DeleteRetentionMs = 1000
	return c
}

// KV is one record as a consumer sees it; Value "<nil>" is a tombstone.
type KV struct {
	Offset     int64
	Key, Value string
}

func (kv KV) String() string { return fmt.Sprintf("%d:%s=%s", kv.Offset, kv.Key, kv.Value) }

// ReadRecords reads the log from its start as a consumer does, following
// gaps, and decodes the records.
func ReadRecords(t *testing.T, l *log.Log) []KV {
	t.Helper()
	var out []KV
	for _, b := range readBatches(t, l, true) {
		recs, err := b.Records()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			v := "<nil>"
			if r.Value != nil {
				v = string(r.Value)
			}
			out = append(out, KV{b.BaseOffset() + int64(r.OffsetDelta), string(r.Key), v})
		}
	}
	return out
}

// keyed builds a batch of key=value records ("k=" is a tombstone).
func keyed(ts int64, kvs ...string) record.Batch {
	bl := record.NewBuilder(record.NewBatchHeader(ts))
	for i, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		var val []byte
		if v != "" {
			val = []byte(v)
		}
		bl.Add([]byte(k), val, int64(i))
	}
	return bl.Build()
}

// cleanAll runs passes with a budget per call until none is in progress,
// returning how many calls it took.
func cleanAll(t *testing.T, l *log.Log, ctx log.CleanContext, budget int64) int {
	t.Helper()
	calls := 0
	for {
		if _, err := l.Clean(ctx, budget); err != nil {
			t.Fatalf("Clean: %v", err)
		}
		calls++
		ctx.Force = false
		if !l.Cleaning() {
			return calls
		}
		if calls > 10000 {
			t.Fatal("cleaning never ends")
		}
	}
}

// fillKeys writes rounds of k0..k4 (values r<round>), deletes k1 in the
// last round, and rolls so that everything is cleanable.
func fillKeys(t *testing.T, l *log.Log, rounds int) {
	t.Helper()
	for r := 0; r < rounds; r++ {
		var kvs []string
		for k := 0; k < 5; k++ {
			if r == rounds-1 && k == 1 {
				kvs = append(kvs, "k1=")
				continue
			}
			kvs = append(kvs, fmt.Sprintf("k%d=r%d", k, r))
		}
		if _, err := l.Append(keyed(int64(100+r), kvs...), 0); err != nil {
			t.Fatal(err)
		}
	}
	must(t, l.Roll(0))
}

func latest(rounds int, tombstone bool) []string {
	var out []string
	for k := 0; k < 5; k++ {
		switch {
		case k == 1 && tombstone:
			out = append(out, "k1=<nil>")
		case k == 1:
		default:
			out = append(out, fmt.Sprintf("k%d=r%d", k, rounds-1))
		}
	}
	return out
}

func kvStrings(kvs []KV) []string {
	out := make([]string, len(kvs))
	for i, kv := range kvs {
		out[i] = kv.Key + "=" + kv.Value
	}
	slices.Sort(out)
	return out
}

func testCompactLatestPerKey(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, CompactConfig(), -1)
	defer func() { _ = l.Close() }()
	fillKeys(t, l, 40)
	before := l.Size()
	leo := l.EndOffset()
	ctx := log.CleanContext{Now: 5000, UpTo: leo, Force: true}
	cleanAll(t, l, ctx, 1<<20)
	got := ReadRecords(t, l)
	if want := latest(40, true); !slices.Equal(kvStrings(got), want) {
		t.Fatalf("after cleaning: %v, want %v", got, want)
	}
	for _, kv := range got {
		if kv.Offset < 195 {
			t.Errorf("%v: offsets must be kept (the last round is 195..199)", kv)
		}
	}
	if l.EndOffset() != leo || l.Size() >= before {
		t.Fatalf("log end %d (was %d), size %d (was %d)", l.EndOffset(), leo, l.Size(), before)
	}
	if l.FirstDirtyOffset() != leo {
		t.Fatalf("first dirty offset %d, want %d", l.FirstDirtyOffset(), leo)
	}
	// Before delete.retention.ms the tombstone stays; after it, a pass
	// (due to the horizon alone) removes it.
	ctx = log.CleanContext{Now: 5000 + 999, UpTo: leo}
	cleanAll(t, l, ctx, 1<<20)
	if got := kvStrings(ReadRecords(t, l)); !slices.Contains(got, "k1=<nil>") {
		t.Fatalf("tombstone gone before delete.retention.ms: %v", got)
	}
	ctx.Now = 5000 + 1000
	cleanAll(t, l, ctx, 1<<20)
	if got, want := kvStrings(ReadRecords(t, l)), latest(40, false); !slices.Equal(got, want) {
		t.Fatalf("after delete.retention.ms: %v, want %v", got, want)
	}
	// Recovery copes with the gaps: reopening changes nothing.
	want := ReadRecords(t, l)
	must(t, l.Close())
	l, notes := Open(t, st, CompactConfig(), -1)
	if len(notes) != 0 {
		t.Errorf("reopen notes: %q", notes)
	}
	if got := ReadRecords(t, l); !slices.Equal(got, want) {
		t.Fatalf("after reopen: %v, want %v", got, want)
	}
	if l.FirstDirtyOffset() != leo {
		t.Fatalf("checkpoint: first dirty %d, want %d", l.FirstDirtyOffset(), leo)
	}
}

func testCompactBoundedSteps(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, CompactConfig(), -1)
	defer func() { _ = l.Close() }()
	fillKeys(t, l, 40)
	before := ReadRecords(t, l)
	ctx := log.CleanContext{Now: 5000, UpTo: l.EndOffset(), Force: true}
	if _, err := l.Clean(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if !l.Cleaning() {
		t.Fatal("a 100-byte budget finished a pass over several KiB")
	}
	// Reads in the middle of a pass see whole segments, old or cleaned.
	mid := kvStrings(ReadRecords(t, l))
	for _, kv := range latest(40, true) {
		if !slices.Contains(mid, kv) {
			t.Fatalf("mid-pass read lost %s: %v", kv, mid)
		}
	}
	ctx.Force = false
	calls := cleanAll(t, l, ctx, 100)
	if calls < 5 {
		t.Fatalf("a pass of %d records took only %d calls of 100 bytes", len(before), calls)
	}
	if got, want := kvStrings(ReadRecords(t, l)), latest(40, true); !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}

func testCompactRespectsBounds(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, CompactConfig(), -1)
	defer func() { _ = l.Close() }()
	fillKeys(t, l, 20)
	if _, err := l.Append(keyed(200, "k0=active"), 0); err != nil {
		t.Fatal(err)
	}
	leo := l.EndOffset()
	// UpTo below the second segment: only the first may be cleaned.
	segs := l.Segments()
	ctx := log.CleanContext{Now: 5000, UpTo: segs[1].NextOffset - 1, Force: true}
	cleanAll(t, l, ctx, 1<<20)
	if l.FirstDirtyOffset() != segs[1].BaseOffset {
		t.Fatalf("first dirty %d, want %d (the bound stops it)", l.FirstDirtyOffset(), segs[1].BaseOffset)
	}
	// min.compaction.lag.ms: segments younger than the lag stay dirty.
	cfg := CompactConfig()
	cfg.MinCompactionLagMs = 1 << 40
	l.SetConfig(cfg)
	ctx = log.CleanContext{Now: 5000, UpTo: leo, Force: true}
	cleanAll(t, l, ctx, 1<<20)
	if l.FirstDirtyOffset() != segs[1].BaseOffset {
		t.Fatalf("min.compaction.lag.ms ignored: first dirty %d", l.FirstDirtyOffset())
	}
	l.SetConfig(CompactConfig())
	cleanAll(t, l, ctx, 1<<20)
	got := ReadRecords(t, l)
	if last := got[len(got)-1]; last.Value != "active" {
		t.Fatalf("the active segment changed: last record %v", last)
	}
	if l.FirstDirtyOffset() != l.Segments()[len(l.Segments())-1].BaseOffset {
		t.Fatalf("first dirty %d: the active segment must stay dirty", l.FirstDirtyOffset())
	}
	// min.cleanable.dirty.ratio: a log whose dirty share is below it waits.
	cfg = CompactConfig()
	cfg.MinCleanableDirtyRatio = 0.9
	l.SetConfig(cfg)
	if _, err := l.Append(keyed(300, "k2=new"), 0); err != nil {
		t.Fatal(err)
	}
	must(t, l.Roll(0))
	ctx = log.CleanContext{Now: 5000, UpTo: l.EndOffset()}
	if ratio, _, _ := l.DirtyRatio(ctx); ratio >= 0.9 {
		t.Fatalf("dirty ratio %v", ratio)
	}
	if _, err := l.Clean(ctx, 1<<20); err != nil || l.Cleaning() || l.FirstDirtyOffset() == l.EndOffset() {
		t.Fatalf("a pass ran below min.cleanable.dirty.ratio (err %v)", err)
	}
}

// TxnBatch is a transactional batch of one producer.
func TxnBatch(pid int64, seq int32, kvs ...string) record.Batch {
	b := keyed(100, kvs...)
	recs, _ := b.Records()
	h := record.NewBatchHeader(100)
	h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.Transactional = pid, 0, seq, true
	return record.AppendBatch(nil, h, recs)
}

// Marker is a commit or abort control batch.
func Marker(pid int64, commit bool) record.Batch {
	h := record.NewBatchHeader(100)
	h.ProducerID, h.ProducerEpoch, h.Transactional, h.Control = pid, 0, true, true
	typ := byte(0)
	if commit {
		typ = 1
	}
	return record.AppendBatch(nil, h, []record.Record{{Key: []byte{0, 0, 0, typ}, Value: []byte{0, 0, 0, 0, 0, 0}}})
}

func testCompactTransactions(t *testing.T, st store.Storage) {
	cfg := CompactConfig()
	l, _ := Open(t, st, cfg, -1)
	defer func() { _ = l.Close() }()
	app := func(b record.Batch) int64 {
		off, err := l.Append(b, 0)
		must(t, err)
		return off
	}
	c := app(TxnBatch(7, 0, "a=committed"))
	app(Marker(7, true))
	first := app(TxnBatch(8, 0, "a=aborted", "b=aborted"))
	abort := app(Marker(8, false))
	must(t, l.AddAbortedTxn(log.AbortedTxn{ProducerID: 8, FirstOffset: first, LastOffset: abort, LastStableOffset: abort + 1}))
	app(TxnBatch(9, 0, "c=1"))
	app(TxnBatch(9, 1, "c=2")) // producer 9's last batch: supersedes c=1 but stays
	app(Marker(9, true))
	must(t, l.Roll(0))
	last9 := map[int64]int64{9: abort + 2}
	ctx := log.CleanContext{Now: 5000, UpTo: l.EndOffset(), Force: true,
		ProducerLast: func(pid int64) (int64, bool) { o, ok := last9[pid]; return o, ok }}
	cleanAll(t, l, ctx, 1<<20)
	got := ReadRecords(t, l)
	if len(got) < 2 || got[0] != (KV{c, "a", "committed"}) {
		t.Fatalf("after the first pass: %v; want the committed record first", got)
	}
	for _, kv := range got {
		if kv.Value == "aborted" || kv.Value == "1" {
			t.Fatalf("aborted or superseded data kept: %v", got)
		}
	}
	// The abort marker stays while its data was just removed; the commit
	// markers get a delete horizon. After delete.retention.ms the markers
	// whose transactions have no data left go.
	ctx.Now += cfg.DeleteRetentionMs
	ctx.Force = true
	cleanAll(t, l, ctx, 1<<20)
	ctx.Now += cfg.DeleteRetentionMs
	ctx.Force = true
	cleanAll(t, l, ctx, 1<<20)
	var markers []int64
	for _, b := range readBatches(t, l, true) {
		if b.IsControl() {
			markers = append(markers, b.LastOffset())
		}
	}
	// Producer 7's commit marker follows data that is still there (a
	// stays committed), and so does producer 9's; producer 8's abort goes.
	if slices.Contains(markers, abort) || len(markers) != 2 {
		t.Fatalf("markers left at %v (abort at %d)", markers, abort)
	}
	if n := len(l.AbortedTxns(0, l.EndOffset())); n != 0 {
		t.Fatalf("%d .txnindex entries left for a removed abort marker", n)
	}
}

// renameFails makes Rename fail for names containing match, once armed.
type renameFails struct {
	store.Storage
	match string
	armed bool
}

var errInjected = errors.New("injected rename failure")

func (r *renameFails) Rename(oldName, newName string) error {
	if r.armed && strings.Contains(oldName, r.match) {
		r.armed = false
		return errInjected
	}
	return r.Storage.Rename(oldName, newName)
}

// testCompactCrashMidClean interrupts a pass at both renames and reopens
// the log: before the .swap exists the old segment stays, after it the
// cleaned one takes its place.
func testCompactCrashMidClean(t *testing.T, st store.Storage) {
	for _, c := range []struct {
		match   string
		cleaned bool
	}{{".log.cleaned", false}, {".log.swap", true}} {
		t.Run(c.match, func(t *testing.T) {
			dir := strings.TrimPrefix(c.match, ".log.")
			_ = st.RemoveAll(dir)
			rs := &renameFails{Storage: st, match: c.match}
			l, _, err := log.Open(rs, dir, CompactConfig(), -1, 0)
			must(t, err)
			// A key written once keeps the first segment from emptying,
			// so that its cleaning ends with the renames.
			if _, err := l.Append(keyed(1, "once=1"), 0); err != nil {
				t.Fatal(err)
			}
			fillKeys(t, l, 40)
			before := ReadRecords(t, l)
			rs.armed = true
			ctx := log.CleanContext{Now: 5000, UpTo: l.EndOffset(), Force: true}
			if _, err := l.Clean(ctx, 1<<20); !errors.Is(err, errInjected) {
				t.Fatalf("Clean: %v, want the injected failure", err)
			}
			must(t, l.Abandon())
			l, notes, err := log.Open(st, dir, CompactConfig(), -1, 0)
			must(t, err)
			defer func() { _ = l.Close() }()
			got := ReadRecords(t, l)
			if !c.cleaned {
				if !slices.Equal(got, before) {
					t.Fatalf("a failed clean changed the log: %v", got)
				}
				return
			}
			if len(got) >= len(before) || !strings.Contains(strings.Join(notes, "\n"), "completed the interrupted cleaning") {
				t.Fatalf("the .swap was not completed: %d records (were %d), notes %q", len(got), len(before), notes)
			}
			if l.TxnIndexSuspect() < 0 {
				t.Fatal("a completed swap must have its .txnindex rebuilt by the owner")
			}
			// What the swap kept plus the untouched segments still hold the
			// latest value of every key.
			for _, kv := range latest(40, true) {
				if !slices.Contains(kvStrings(got), kv) {
					t.Fatalf("lost %s: %v", kv, got)
				}
			}
		})
	}
}

func testFollowerAppendWithGaps(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, SmallConfig(), -1)
	defer func() { _ = l.Close() }()
	b := keyed(100, "a=1")
	b.SetBaseOffset(10)
	must(t, l.AppendAsFollower(b, 0))
	b2 := keyed(100, "b=1")
	b2.SetBaseOffset(5)
	if err := l.AppendAsFollower(b2, 0); !errors.Is(err, log.ErrOffsetOutOfRange) {
		t.Fatalf("a batch below the log end: %v", err)
	}
	if l.EndOffset() != 11 {
		t.Fatalf("log end %d, want 11", l.EndOffset())
	}
	must(t, l.Close())
	l, _ = Open(t, st, SmallConfig(), -1)
	if got := ReadRecords(t, l); len(got) != 1 || got[0].Offset != 10 {
		t.Fatalf("after reopen: %v", got)
	}
}

// testCompactMapBound: a pass maps dirty segments until the offset map
// holds MaxKeys keys, then cleans up to the end of the last one mapped.
func testCompactMapBound(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, CompactConfig(), -1)
	defer func() { _ = l.Close() }()
	for i := range 60 {
		if _, err := l.Append(keyed(100, fmt.Sprintf("key-%02d=v", i)), 0); err != nil {
			t.Fatal(err)
		}
	}
	must(t, l.Roll(0))
	segs := l.Segments()
	if len(segs) < 4 {
		t.Fatalf("%d segments, want several", len(segs))
	}
	ctx := log.CleanContext{Now: 5000, UpTo: l.EndOffset(), Force: true, MaxKeys: 1}
	cleanAll(t, l, ctx, 1<<20)
	if got := l.FirstDirtyOffset(); got != segs[1].BaseOffset {
		t.Fatalf("first dirty %d after a pass with a one-key map, want %d", got, segs[1].BaseOffset)
	}
	cleanAll(t, l, ctx, 1<<20)
	if got := l.FirstDirtyOffset(); got != segs[2].BaseOffset {
		t.Fatalf("first dirty %d after two passes, want %d", got, segs[2].BaseOffset)
	}
	if n := len(ReadRecords(t, l)); n != 60 {
		t.Fatalf("%d records, want all 60 distinct keys", n)
	}
}

// testCompactTruncateIntoCleaned: a follower truncating into a cleaned
// segment keeps its gaps through a restart (the segment is sealed, and
// only the active segment must be contiguous).
func testCompactTruncateIntoCleaned(t *testing.T, st store.Storage) {
	l, _ := Open(t, st, CompactConfig(), -1)
	for r := range 26 { // a, b, c, a, b, c, ... then u20..u25
		kv := fmt.Sprintf("%c=%d", 'a'+r%3, r)
		if r >= 20 {
			kv = fmt.Sprintf("u%d=%d", r, r)
		}
		if _, err := l.Append(keyed(100, kv), 0); err != nil {
			t.Fatal(err)
		}
	}
	must(t, l.Roll(0))
	cleanAll(t, l, log.CleanContext{Now: 5000, UpTo: l.EndOffset(), Force: true}, 1<<20)
	segs := l.Segments()
	if s := segs[len(segs)-2]; s.BaseOffset != 14 {
		t.Fatalf("segments %+v: want the last closed one at 14", segs)
	}
	if got := ReadRecords(t, l); len(got) != 9 || got[0].Offset != 17 {
		t.Fatalf("cleaned: %v", got)
	}
	must(t, l.TruncateTo(25)) // inside the cleaned segment, after a gap
	want := ReadRecords(t, l)
	if len(want) != 8 || l.EndOffset() != 25 {
		t.Fatalf("after truncation to 25: %v, log end %d", want, l.EndOffset())
	}
	must(t, l.Close())
	l, notes := Open(t, st, CompactConfig(), -1)
	defer func() { _ = l.Close() }()
	if got := ReadRecords(t, l); !slices.Equal(got, want) {
		t.Fatalf("after a restart: %v, want %v (notes %q)", got, want, notes)
	}
}

// testCompactMaxLag: max.compaction.lag.ms (KIP-354) rolls the active
// segment at that age and cleans a dirty segment that old whatever the
// dirty ratio.
func testCompactMaxLag(t *testing.T, st store.Storage) {
	cfg := CompactConfig()
	cfg.MinCleanableDirtyRatio = 2 // never reached: only the lag can start a pass
	cfg.MaxCompactionLagMs = 1000
	l, _ := Open(t, st, cfg, -1)
	defer func() { _ = l.Close() }()
	for _, at := range []int64{0, 10, 1011} {
		if _, err := l.Append(keyed(at, "k=v"), at); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(l.Segments()); n != 2 {
		t.Fatalf("%d segments: the active one must roll after max.compaction.lag.ms", n)
	}
	ctx := log.CleanContext{Now: 1000, UpTo: l.EndOffset()}
	cleanAll(t, l, ctx, 1<<20)
	if l.FirstDirtyOffset() != 0 {
		t.Fatal("a pass ran before max.compaction.lag.ms")
	}
	ctx.Now = 1001
	cleanAll(t, l, ctx, 1<<20)
	// Offset 0 is superseded by 1; 2 is in the active segment.
	if got := ReadRecords(t, l); l.FirstDirtyOffset() != 2 || len(got) != 2 || got[0].Offset != 1 {
		t.Fatalf("after max.compaction.lag.ms: first dirty %d, records %v", l.FirstDirtyOffset(), ReadRecords(t, l))
	}
}
