package ui

import (
	"context"
	"fmt"

	"github.com/gregor-kafka/gregor/core/view"
)

// SeqMsg is one message of the sequence view: a step's arrow, with the
// step it belongs to (1-based).
type SeqMsg struct {
	Step    int
	Command string // the step's command, on the first message of a step
	Arrow
}

// SeqArrows are the arrows of one step for the sequence view: every
// message, background traffic included (the view folds it), with its
// ends mapped to the actors of st as the diagram maps them.
func SeqArrows(st view.World, xs []Exchange, step int, command string) []SeqMsg {
	var out []SeqMsg
	for _, a := range arrows(st, xs) {
		out = append(out, SeqMsg{Step: step, Arrow: a})
	}
	if len(out) > 0 {
		out[0].Command = command
	}
	return out
}

// Sequence is the swimlane drawing of the messages so far: one lane per
// actor that sent or received one, time flowing down, one row per
// message. Folded hides background traffic, leaving a count per step.
type Sequence struct {
	W, H    int
	Lanes   []Lane
	Rows    []SeqRow
	Current int // the current step
	Folded  bool
	Hidden  int // messages folded away
	// ScrollTo is the scroll offset that shows the current step's first
	// row just under the lane headers, ScrollX the one that shows its
	// first message's sender on a narrow screen (wasm/keep.go scrolls
	// there).
	ScrollTo, ScrollX int
}

// SeqRow is one row: a message, or a heading (seqHeading): a step's
// command, or the count of its folded background messages.
type SeqRow struct {
	Y       int
	Step    int
	Heading bool
	Hidden  int    // a heading's count of folded messages; 0 on a step's own
	Command string // a step's heading's command
	Current bool
	X1, X2  int // the arrow, sender to receiver
	Msg     SeqMsg
}

const (
	seqLaneW = 150
	seqLeft  = 80
	seqRow   = 24
	seqHead  = 26 // the lane headers' height: they stay on top as the rows scroll
	seqTop   = 44 // the first row's baseline
)

// NewSequence lays out msgs in lanes ordered as st lists its actors.
func NewSequence(st view.World, msgs []SeqMsg, current int, folded bool) Sequence {
	used := map[string]bool{}
	for _, m := range msgs {
		used[m.From], used[m.To] = true, true
	}
	s := Sequence{Current: current, Folded: folded}
	x := map[string]int{}
	for _, a := range st.Actors {
		if used[a.Name] {
			x[a.Name] = seqLeft + len(s.Lanes)*seqLaneW
			s.Lanes = append(s.Lanes, Lane{X: x[a.Name], Title: a.Name})
		}
	}
	y, step, hidden := seqTop, 0, 0
	flush := func() {
		if hidden > 0 {
			s.Rows = append(s.Rows, SeqRow{Y: y, Step: step, Current: step == current, Heading: true, Hidden: hidden})
			y += seqRow
			s.Hidden += hidden
		}
		hidden = 0
	}
	for _, m := range msgs {
		if m.Step != step {
			flush()
			step = m.Step
			s.Rows = append(s.Rows, SeqRow{Y: y, Step: step, Current: step == current, Heading: true, Command: m.Command})
			y += seqRow
		}
		if folded && m.Folded {
			hidden += m.Count
			continue
		}
		s.Rows = append(s.Rows, SeqRow{Y: y, Step: step, Current: step == current, X1: x[m.From], X2: x[m.To], Msg: m})
		y += seqRow
	}
	flush()
	s.W = seqLeft + max(len(s.Lanes)-1, 0)*seqLaneW + seqLeft
	s.H = y + 8
	for _, r := range s.Rows {
		if r.Current {
			s.ScrollTo = max(r.Y-seqRow+8-seqHead-4, 0)
			break
		}
	}
	for _, r := range s.Rows {
		if r.Current && !r.Heading {
			s.ScrollX = max(min(r.X1, r.X2)-seqLeft, 0)
			break
		}
	}
	return s
}

// seqHeading is a heading row's text in the component's language.
func seqHeading(ctx context.Context, r SeqRow) string {
	if r.Hidden > 0 {
		return Tf(ctx, "… %d background messages folded (heartbeats, registrations, raft)", r.Hidden)
	}
	return Tf(ctx, "step %d  %s", r.Step, r.Command)
}

// seqBody is the viewBox of the rows, under the lane headers.
func seqBody(s Sequence) string { return fmt.Sprintf("0 %d %d %d", seqHead, s.W, s.H-seqHead) }

// seqLabelX places a row's label just right of the arrow's left end.
func seqLabelX(r SeqRow) int { return min(r.X1, r.X2) + 6 }

func foldKey(s Sequence) string {
	if s.Folded {
		return "folded"
	}
	return "all"
}

// seqMark is a row's fate in words, after its label.
func seqMark(ctx context.Context, m SeqMsg) string {
	switch {
	case m.Mark != "":
		return "  " + m.Glyph + " " + markText(ctx, m.Mark)
	case m.Count > 1:
		return "  " + times(m.Arrow)
	}
	return ""
}
