package broker

import (
	"testing"

	"github.com/gregor-kafka/gregor/core/record"
)

// TestCollectWritesNests: a step collects the appends made in it, an
// inner step its own apart while the outer goes on collecting around it,
// and an append outside every step is collected by none.
func TestCollectWritesNests(t *testing.T) {
	h := newHarness(t, map[string]string{"log.flush.interval.messages": "1"})
	appendOne := func() {
		t.Helper()
		if _, err := h.b.AppendInternal(OffsetsTopic, 0, record.Batch(batchOf("x"))); err != nil {
			t.Fatal(err)
		}
	}
	appendOne()
	var inner coordinatorWrites
	outer := h.b.collectWrites(func() {
		appendOne()
		inner = h.b.collectWrites(appendOne)
		if n := len(h.b.stepWrites().syncs); n != 1 {
			t.Errorf("after the inner step the outer has %d appends, want 1", n)
		}
		appendOne()
	})
	if len(outer.syncs) != 2 || len(inner.syncs) != 1 {
		t.Errorf("the outer step collected %d appends, the inner %d; want 2 and 1", len(outer.syncs), len(inner.syncs))
	}
	if h.b.step != nil || len(h.b.stepWrites().syncs) != 0 {
		t.Error("a step is in progress after the outer one ended")
	}
}
