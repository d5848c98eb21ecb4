package sim

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/view"
)

// Limits bounds what a world may be asked to do, so that a replay whose
// commands come from a stranger (a URL the server prerenders) costs a
// bounded amount of CPU. Zero fields are unlimited; a world starts
// unlimited.
type Limits struct {
	// Work bounds the world's work units (Work): one per timer event
	// fired by advancing the clock, and per message delivered one plus
	// the partitions a Fetch carries (a replica's Fetch of 50 partitions
	// costs the engine about 50 times one of one).
	Work int64
	// Time bounds the virtual clock, in ms since view.StartTime.
	Time int64
}

// ErrLimit is wrapped by the error of a command that would take the
// world past its Limits. The world is then left mid-command: a caller
// that hits it abandons the world.
var ErrLimit = errors.New("over the replay's limit")

// SetLimits sets the world's limits.
func (w *World) SetLimits(l Limits) { w.limits = l }

// Work counts the world's work units so far (Limits.Work).
// The same commands on the same seed always do the same work.
func (w *World) Work() int64 { return w.work }

// spend counts n work units and fails once the world is over its limit.
func (w *World) spend(n int64) error {
	w.work += n
	return w.overWork()
}

// overWork fails once the world has done more work than its limit.
func (w *World) overWork() error {
	if w.limits.Work > 0 && w.work > w.limits.Work {
		return fmt.Errorf("%w: more than %d units of simulator work (timer events and messages)", ErrLimit, w.limits.Work)
	}
	return nil
}

// weight is what delivering a message costs beyond the message itself:
// the partitions a Fetch carries (replicas fetch every partition they
// follow, every few hundred ms of clock).
func weight(msg any) int64 {
	n := 0
	switch m := msg.(type) {
	case *kmsg.FetchRequest:
		for _, t := range m.Topics {
			n += len(t.Partitions)
		}
	case *kmsg.FetchResponse:
		for _, t := range m.Topics {
			n += len(t.Partitions)
		}
	}
	return int64(n)
}

// checkTime fails if the clock may not reach end.
func (w *World) checkTime(end int64) error {
	if w.limits.Time > 0 && end-view.StartTime > w.limits.Time {
		return fmt.Errorf("%w: the clock may not pass %s of simulated time", ErrLimit, formatMs(w.limits.Time))
	}
	return nil
}

// formatMs writes a duration the way commands take it (90s, 30m, 2h).
func formatMs(ms int64) string {
	switch {
	case ms%3_600_000 == 0:
		return fmt.Sprintf("%dh", ms/3_600_000)
	case ms%60_000 == 0:
		return fmt.Sprintf("%dm", ms/60_000)
	case ms%1000 == 0:
		return fmt.Sprintf("%ds", ms/1000)
	}
	return fmt.Sprintf("%dms", ms)
}
