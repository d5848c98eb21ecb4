package log_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
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
func TestCompactRandom(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { compactRandom(t, seed) })
	}
}

func compactRandom(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	st := store.NewMem()
	cfg := logtest.CompactConfig()
	cfg.SegmentBytes = int64(250 + rng.IntN(700))
	open := func() *log.Log {
		l, notes, err := log.Open(st, "t-0", cfg, -1, 0)
		if err != nil {
			t.Fatalf("seed %d: Open: %v (%q)", seed, err, notes)
		}
		return l
	}
	l := open()
	clean := func(ctx log.CleanContext, budget int64) {
		if _, err := l.Clean(ctx, budget); errors.Is(err, store.ErrIO) {
			st.Crash() // an injected failure of a swap: then the power goes
			l = open()
		} else if err != nil {
			t.Fatalf("seed %d: Clean: %v", seed, err)
		}
	}
	appended := map[int64]logtest.KV{} // offset -> what was written there
	latest := map[string]string{}      // key -> its latest value, "<nil>" when deleted
	now := int64(0)
	for step := range 300 {
		switch r := rng.IntN(20); {
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
				t.Fatalf("seed %d: Append: %v", seed, err)
			}
			for i, kv := range kvs {
				kv.Offset = base + int64(i)
				appended[kv.Offset] = kv
				latest[kv.Key] = kv.Value
			}
			// A crash must not take back what the model counts on.
			if err := l.Flush(now); err != nil {
				t.Fatal(err)
			}
		case r < 17:
			ctx := log.CleanContext{Now: now, UpTo: l.EndOffset(), Force: rng.IntN(4) == 0, MaxKeys: 1 + rng.IntN(12)}
			clean(ctx, int64(50+rng.IntN(1500)))
		case r < 19:
			now += int64(rng.IntN(700))
		case rng.IntN(2) == 0:
			// The next swap of a cleaned segment fails half-way (.swap
			// written, the old segment still in place).
			st.Arm(store.Fault{Op: store.OpRename, Match: ".log.swap", Nth: 1, Err: store.ErrIO})
		default:
			st.Crash()
			l = open()
		}
	}
	if err := l.Roll(now); err != nil {
		t.Fatal(err)
	}
	st.Disarm() // a fault armed but not fired would cut the final pass short
	// The first round finishes a pass in progress (bounded by the log of
	// its start), the second is a full one.
	for range 2 {
		ctx := log.CleanContext{Now: now, UpTo: l.EndOffset(), Force: true}
		for {
			clean(ctx, 1<<20)
			ctx.Force = false
			if !l.Cleaning() {
				break
			}
		}
	}
	got := logtest.ReadRecords(t, l)
	last := map[string]string{}
	prev := int64(-1)
	for _, kv := range got {
		if want, ok := appended[kv.Offset]; !ok || want != kv {
			t.Fatalf("seed %d: read %v, but %v was appended there", seed, kv, want)
		}
		if kv.Offset <= prev {
			t.Fatalf("seed %d: offset %d after %d", seed, kv.Offset, prev)
		}
		prev = kv.Offset
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
	// After a full pass each key appears once.
	seen := map[string]bool{}
	for _, kv := range got {
		if seen[kv.Key] {
			t.Fatalf("seed %d: key %s twice after a full pass: %v", seed, kv.Key, got)
		}
		seen[kv.Key] = true
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}
