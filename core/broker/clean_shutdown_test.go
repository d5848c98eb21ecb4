package broker

import (
	"errors"
	"testing"

	"github.com/gregor-kafka/gregor/core/store"
)

// TestCleanShutdownMark: Close leaves the mark, the next start takes it
// (its logs open as after a clean shutdown) and removes it, so a crash of
// that run restarts as after a crash.
func TestCleanShutdownMark(t *testing.T) {
	h := newHarness(t, nil)
	h.createTopic("t", 2, nil)
	marked := func() bool {
		_, err := h.st.ReadFile(cleanShutdownFile)
		if err != nil && !errors.Is(err, store.ErrNotExist) {
			t.Fatal(err)
		}
		return err == nil
	}
	if marked() {
		t.Fatal("a running broker's storage holds the clean shutdown mark")
	}
	if err := h.b.Close(); err != nil {
		t.Fatal(err)
	}
	if !marked() {
		t.Fatal("Close left no clean shutdown mark")
	}
	h.open()
	if marked() {
		t.Error("the start after a clean shutdown kept the mark")
	}
	if p := h.b.topics["t"].Partitions[1]; p.log.Config().CleanShutdown {
		t.Error("the clean start's log config outlives the start")
	}
	h.st.Crash()
	h.open()
	if marked() {
		t.Error("a crash left a clean shutdown mark")
	}
}
