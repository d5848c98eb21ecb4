package log_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/log/logtest"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/store"
)

// TestCompactRandom drives a compacted log through random appends,
// cleaning steps of random budgets, clock moves and power losses (a
// crash may land in the middle of a pass), then checks what a consumer
// reads: every record is one that was appended at that very offset, each
// key's last record is its latest value (or, for a deleted key, its
// tombstone or nothing), and after a full pass each key appears once.
// Crashes come as power losses between calls, and as a failed rename of
// a .swap (an armed fault) followed by a power loss, which Open completes.
//
// The disk misbehaves too (store/memfaults.go): it fills up (a write
// fails with ENOSPC; the broker restarts), a power loss tears the last
// unsynced write, and a byte of a synced file flips at rest. The
// invariant then is that nothing the log decodes and serves is corrupt:
// a record whose batch passes its CRC was appended at that offset (the
// cleaner must not rewrite a damaged batch under a fresh CRC), and a
// damaged batch is truncated by recovery, refused by the cleaner
// (log.ErrCorrupt: the broker leaves the partition uncleaned, KIP-346),
// or served as it is, for the consumer's CRC check to catch. A seed whose
// disk flipped a byte is excused the per-key checks: the flipped record
// may have been a key's latest. GREGOR_COMPACT_SEEDS=N runs seeds 1 to N
// (40 by default).
func TestCompactRandom(t *testing.T) {
	stats := map[string]int{}
	n := uint64(40)
	if v, err := strconv.ParseUint(os.Getenv("GREGOR_COMPACT_SEEDS"), 10, 64); err == nil {
		n = v
	}
	for seed := uint64(1); seed <= n; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { compactRandom(t, seed, stats) })
	}
	// The faults must have bitten, or the checks prove nothing.
	for _, k := range []string{"flip", "detected", "full", "tear"} {
		if stats[k] == 0 {
			t.Errorf("no %s in %d seeds: %v", k, n, stats)
		}
	}
	t.Logf("%v", stats)
}

func compactRandom(t *testing.T, seed uint64, stats map[string]int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	st := store.NewMem()
	cfg := logtest.CompactConfig()
	cfg.SegmentBytes = int64(250 + rng.IntN(700))
	appended := map[int64]logtest.KV{} // offset -> what was written there
	flipped, uncleanable := false, false
	var l *log.Log
	open := func() {
		var notes []string
		var err error
		l, notes, err = log.Open(st, "t-0", cfg, -1, 0)
		if err != nil {
			t.Fatalf("seed %d: Open: %v (%q)", seed, err, notes)
		}
		// What a power loss took (unsynced, torn, or after a flipped
		// batch recovery truncated) is no longer the model's.
		for off := range appended {
			if off >= l.EndOffset() {
				delete(appended, off)
			}
		}
	}
	crash := func() {
		st.Unfill()
		st.Crash()
		open()
	}
	open()
	// failed handles an error of the log: a full disk or an injected
	// rename failure ends in a power loss and a restart; a corrupt batch
	// the cleaner met leaves the log uncleaned, but only a flip may cause
	// one.
	failed := func(what string, err error) {
		switch {
		case err == nil:
		case errors.Is(err, store.ErrIO), errors.Is(err, store.ErrNoSpace):
			crash()
		case errors.Is(err, log.ErrCorrupt) && flipped:
			stats["detected"]++
			uncleanable = true
		default:
			t.Fatalf("seed %d: %s: %v", seed, what, err)
		}
	}
	now := int64(0)
	for step := range 300 {
		switch r := rng.IntN(22); {
		case r < 12:
			bl := record.NewBuilder(record.NewBatchHeader(now))
			var kvs []logtest.KV
			for i := range 1 + rng.IntN(4) {
				k := fmt.Sprintf("k%d", rng.IntN(12))
				var v []byte
				if rng.IntN(8) > 0 {
					v = fmt.Appendf(nil, "v%d-%d", step, i)
				}
				bl.Add([]byte(k), v, 0)
				s := "<nil>"
				if v != nil {
					s = string(v)
				}
				kvs = append(kvs, logtest.KV{Key: k, Value: s})
			}
			base, err := l.Append(bl.Build(), now)
			if err != nil {
				failed("Append", err)
				continue
			}
			for i, kv := range kvs {
				kv.Offset = base + int64(i)
				appended[kv.Offset] = kv
			}
			if rng.IntN(3) > 0 {
				failed("Flush", l.Flush(now))
			}
		case r < 17:
			if uncleanable {
				continue
			}
			ctx := log.CleanContext{Now: now, UpTo: l.EndOffset(), Force: rng.IntN(4) == 0, MaxKeys: 1 + rng.IntN(12)}
			_, err := l.Clean(ctx, int64(50+rng.IntN(1500)))
			failed("Clean", err)
		case r < 19:
			now += int64(rng.IntN(700))
		case r == 19:
			if rng.IntN(2) == 0 {
				// The next swap of a cleaned segment fails half-way (.swap
				// written, the old segment still in place).
				st.Arm(store.Fault{Op: store.OpRename, Match: ".log.swap", Nth: 1, Err: store.ErrIO})
			} else {
				st.Fill(int64(rng.IntN(600)))
				stats["full"]++
			}
		case r == 20 && rng.IntN(3) == 0:
			if names, sizes := st.Synced("t-0/"); len(names) > 0 {
				i := rng.IntN(len(names))
				if err := st.Flip(names[i], rng.IntN(sizes[i]), byte(1+rng.IntN(255))); err != nil {
					t.Fatal(err)
				}
				flipped = true
				stats["flip"]++
			}
		default:
			if rng.IntN(2) == 0 {
				st.ArmTear(func(n int) int { return rng.IntN(n + 1) })
				stats["tear"]++
			}
			crash()
		}
	}
	st.Disarm() // a fault armed but not fired would cut the final pass short
	if err := l.Roll(now); err != nil {
		failed("Roll", err)
	}
	// The first round finishes a pass in progress (bounded by the log of
	// its start), the second is a full one.
	for range 2 {
		ctx := log.CleanContext{Now: now, UpTo: l.EndOffset(), Force: true}
		for !uncleanable {
			_, err := l.Clean(ctx, 1<<20)
			failed("Clean", err)
			ctx.Force = false
			if !l.Cleaning() {
				break
			}
		}
	}
	got, detected := consumeChecked(t, l, flipped)
	stats["detected"] += detected
	prev := int64(-1)
	for _, kv := range got {
		if want, ok := appended[kv.Offset]; !ok || want != kv {
			t.Fatalf("seed %d: read %v with a valid CRC, but %v was appended there", seed, kv, want)
		}
		if kv.Offset <= prev {
			t.Fatalf("seed %d: offset %d after %d", seed, kv.Offset, prev)
		}
		prev = kv.Offset
	}
	if !flipped {
		checkLatest(t, seed, appended, got, !uncleanable)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// checkLatest checks that each key's last record read is its latest
// value, and with once that each key appears once (after a full pass).
func checkLatest(t *testing.T, seed uint64, appended map[int64]logtest.KV, got []logtest.KV, once bool) {
	t.Helper()
	offsets := make([]int64, 0, len(appended))
	for off := range appended {
		offsets = append(offsets, off)
	}
	slices.Sort(offsets)
	latest := map[string]string{} // key -> its latest value, "<nil>" when deleted
	for _, off := range offsets {
		latest[appended[off].Key] = appended[off].Value
	}
	last := map[string]string{}
	seen := map[string]bool{}
	for _, kv := range got {
		if once && seen[kv.Key] {
			t.Fatalf("seed %d: key %s twice after a full pass: %v", seed, kv.Key, got)
		}
		seen[kv.Key] = true
		last[kv.Key] = kv.Value
	}
	for k, v := range latest {
		switch got, ok := last[k]; {
		case v == "<nil>" && ok && got != "<nil>":
			t.Fatalf("seed %d: deleted key %s reads %q", seed, k, got)
		case v != "<nil>" && got != v:
			t.Fatalf("seed %d: key %s reads %q, latest is %q", seed, k, got, v)
		}
	}
}

// consumeChecked reads the log from its start as a consumer that checks
// CRCs does (franz-go and Kafka's consumers do): it returns the records
// of the batches that pass, and how many it found damaged (a bad CRC, or
// a read the log refused as corrupt). Without a flip nothing may be
// damaged.
func consumeChecked(t *testing.T, l *log.Log, flipped bool) (got []logtest.KV, detected int) {
	t.Helper()
	for off := l.StartOffset(); off < l.EndOffset(); {
		p, err := l.Read(off, 1<<20, l.EndOffset(), true)
		if errors.Is(err, log.ErrCorrupt) && flipped {
			return got, detected + 1
		}
		if err != nil {
			t.Fatalf("Read(%d): %v", off, err)
		}
		it := record.NewIter(p)
		n := 0
		for b, ok := it.Next(); ok; b, ok = it.Next() {
			n++
			if b.LastOffset() < off {
				// Offsets that go back: a flipped base offset (the CRC
				// does not cover it), which the consumer sees.
				if !flipped {
					t.Fatalf("Read(%d) returned batch %d..%d", off, b.BaseOffset(), b.LastOffset())
				}
				return got, detected + 1
			}
			off = b.LastOffset() + 1
			if err := record.ValidateStored(b); err != nil {
				if !flipped {
					t.Fatalf("Read(%d): a damaged batch without a flip: %v", off, err)
				}
				detected++
				continue
			}
			recs, err := b.Records()
			if err != nil {
				t.Fatalf("batch %d..%d passes its CRC but does not decode: %v", b.BaseOffset(), b.LastOffset(), err)
			}
			for _, r := range recs {
				v := "<nil>"
				if r.Value != nil {
					v = string(r.Value)
				}
				got = append(got, logtest.KV{Offset: b.BaseOffset() + int64(r.OffsetDelta), Key: string(r.Key), Value: v})
			}
		}
		if n == 0 || len(it.Rest()) != 0 {
			if flipped {
				return got, detected + 1 // a length the flip changed: the consumer cannot go on
			}
			t.Fatalf("Read(%d) returned %d batches and %d stray bytes", off, n, len(it.Rest()))
		}
	}
	return got, detected
}
