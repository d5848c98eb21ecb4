package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// tally counts a produce's records as kgo answers them, and ends the
// produce when it stalls: records are outstanding and none was answered
// for --timeout. kgo itself never fails an idempotent record once it was
// sent (its sequence may be written), so against a broker that takes
// requests and never answers it would retry forever.
type tally struct {
	mu       sync.Mutex
	sum      produced
	written  int             // acknowledged
	timedOut int             // of sum.Failed: no answer within --timeout
	firstErr error           // the first failure
	said     map[string]bool // the errors told so far: each once, at its first record
	since    time.Time       // of the last answer, or of the first record outstanding since
	stalled  bool
}

// sent counts one more record handed to kgo and returns its number.
func (t *tally) sent() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.outstanding() == 0 {
		t.since = time.Now()
	}
	t.sum.Records++
	return t.sum.Records
}

func (t *tally) outstanding() int { return t.sum.Records - t.written - t.sum.Failed }

// answered counts record n's answer and returns how many are
// acknowledged; a refusal is told on stderr the first time it is seen,
// a timeout only in the summary.
func (t *tally) answered(stderr io.Writer, n int, r *kgo.Record, err error) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.since = time.Now()
	if err == nil {
		t.sum.Partitions[r.Partition] = max(t.sum.Partitions[r.Partition], r.Offset)
		t.written++
		return t.written
	}
	t.sum.Failed++
	if t.firstErr == nil {
		t.firstErr = err
	}
	if errors.Is(err, kgo.ErrRecordTimeout) || t.stalled {
		t.timedOut++
		return t.written
	}
	if !t.said[err.Error()] {
		t.said[err.Error()] = true
		fmt.Fprintf(stderr, "gregor: record %d (%d bytes) not produced to %s: %v%s\n", n, len(r.Key)+len(r.Value), r.Topic, err, produceHint(err, r.Topic))
	}
	return t.written
}

// watch cancels the produce once it stalls for timeout; it returns when
// ctx ends.
func (t *tally) watch(ctx context.Context, cancel context.CancelFunc, timeout time.Duration) {
	tick := time.NewTicker(min(timeout/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t.mu.Lock()
		stall := t.outstanding() > 0 && time.Since(t.since) >= timeout
		t.stalled = t.stalled || stall
		t.mu.Unlock()
		if stall {
			cancel()
			return
		}
	}
}

// timeoutLine is the summary of a produce that timed out, said before
// the timeout itself (Run): a script producing the rest again must know
// that the unanswered records may have been written all the same.
func (t *tally) timeoutLine() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stalled {
		t.timedOut += t.outstanding()
		t.sum.Failed += t.outstanding()
	}
	if t.timedOut == 0 {
		return "", false
	}
	line := fmt.Sprintf("gregor: produced %d of %d records to %s; %d got no answer within --timeout (written or not: unknown)",
		t.written, t.sum.Records, t.sum.Topic, t.timedOut)
	if refused := t.sum.Failed - t.timedOut; refused > 0 {
		line += fmt.Sprintf(", %d refused", refused)
	}
	return line, true
}

// summary is the count once every record was answered.
func (t *tally) summary() produced {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.sum
}
