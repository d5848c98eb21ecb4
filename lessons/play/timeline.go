package play

import (
	"errors"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// Timeline is a world that keeps what each of its steps did, so that a
// page renders from kept snapshots instead of replaying from the seed:
// going back is a lookup, going forward runs only the new commands.
//
// A changed command list (a learner's step inserted or removed at k, a new
// seed) keeps the results of the unchanged prefix; the world itself is
// rebuilt only when a command past that prefix is needed, by replaying the
// prefix once in a fresh world (a world cannot be copied, so there are no
// checkpoints between the seed and the prefix's end).
//
// The zero Timeline is empty and ready to use; it is not safe for
// concurrent use.
//
// # Invariants
//
//   - steps[i] is what cmds[i] did in a world of seed where cmds[:i] ran
//     before it; the world is deterministic (same seed and commands, same
//     run), so a kept step equals the one a fresh replay computes.
//   - w, when not nil, has run exactly cmds[:ran], ran <= len(steps).
//   - A Step is never changed once kept; its State is not shared with the
//     world or with any other step.
type Timeline struct {
	// Limits bound each world the timeline runs (zero: unlimited); a
	// command over them fails with sim.ErrLimit, and Over reports it.
	Limits sim.Limits

	seed  uint64
	cmds  []string
	steps []Step
	start view.World // the empty world, before the first step

	w    *sim.World
	ran  int
	over error // the first sim.ErrLimit a kept step hit
}

// Step is what one command did: what it printed, the messages it caused
// and the state after it.
type Step struct {
	Out       string // as lessons.Exec prints it, errors included
	Lines     []ui.Line
	Exchanges []ui.Exchange
	// State is the world right after the step, its changes marked
	// against the step before (view.MarkChanges).
	State view.World
	// Failed reports that the command was rejected (Out ends in its error).
	Failed bool
	// Over reports that it failed on the timeline's Limits (sim.ErrLimit).
	Over bool
}

// Run returns what the first n of cmds did in a world of seed, running
// only the commands not kept from an earlier call.
func (t *Timeline) Run(seed uint64, cmds []string, n int) []Step {
	n = min(n, len(cmds))
	if t.seed != seed || (t.w == nil && len(t.steps) == 0) {
		*t = Timeline{Limits: t.Limits, seed: seed, start: sim.New(seed).View()}
	}
	keep := 0
	for keep < len(t.cmds) && keep < len(cmds) && t.cmds[keep] == cmds[keep] {
		keep++
	}
	t.cmds, t.steps = t.cmds[:keep:keep], t.steps[:keep:keep]
	if t.over != nil && !slices.ContainsFunc(t.steps, func(s Step) bool { return s.Over }) {
		t.over = nil
	}
	if t.ran > keep {
		t.w, t.ran = nil, 0
	}
	if n <= len(t.steps) {
		return t.steps[:n]
	}
	if t.w == nil {
		t.w, t.ran = sim.New(seed), 0
		t.w.SetLimits(t.Limits)
	}
	for ; t.ran < len(t.steps); t.ran++ {
		lessons.Exec(t.w, t.cmds[t.ran])
	}
	for i := len(t.steps); i < n; i++ {
		t.cmds = append(t.cmds, cmds[i])
		t.steps = append(t.steps, t.exec(i, cmds[i]))
		t.ran++
	}
	return t.steps[:n]
}

// Over is the error of the first kept step that went over the
// timeline's Limits, or nil.
func (t *Timeline) Over() error { return t.over }

// Start is the view of the world before its first step.
func (t *Timeline) Start() view.World { return t.start }

// exec runs command i and keeps what it did.
func (t *Timeline) exec(i int, cmd string) Step {
	before := t.start
	if i > 0 {
		before = t.steps[i-1].State
	}
	from := len(t.w.Events())
	out, err := t.w.Exec(cmd)
	events := t.w.Events()[from:]
	st := Step{Out: lessons.Output(out, err), Failed: err != nil, Over: errors.Is(err, sim.ErrLimit), Lines: ui.Lines(events, i), Exchanges: ui.Exchanges(events, i), State: t.w.View()}
	// An error is printed by lessons.Output, not by an event.
	if outLines := strings.Split(st.Out, "\n"); st.Out != "" && len(outLines) > len(st.Lines) {
		for _, l := range outLines[len(st.Lines):] {
			st.Lines = append(st.Lines, ui.Line{Kind: "error", Text: l})
		}
	}
	view.MarkChanges(&before, &st.State)
	if st.Over && t.over == nil {
		t.over = err
	}
	return st
}
