package play

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// TraceFormat names the format of a saved trace (Trace), so that a file
// of another kind is refused with a reason.
const TraceFormat = "gregor-trace/1"

// Trace is a recording of the native broker's exchanges with real clients
// (server/live.Recent saves it from /live), stepped through in the
// playground like a lesson: one step per exchange, as recorded, each
// with the snapshot of the world it happened in.
//
// # Invariants
//
//   - Steps are in the order the requests reached the broker; each holds
//     its request and the response paired with it (either may be
//     missing: not seen by the watcher).
//   - A step's World names every actor its exchange runs between.
type Trace struct {
	Format string      `json:"format"`
	Title  string      `json:"title"` // where and when it was recorded
	Steps  []TraceStep `json:"steps"`
}

// TraceStep is one exchange with the world it happened in.
type TraceStep struct {
	World    view.World  `json:"world"`
	Exchange ui.Exchange `json:"exchange"`
}

// ParseTrace reads a saved trace.
func ParseTrace(data []byte) (*Trace, error) {
	var t Trace
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("not a saved trace: %w", err)
	}
	if t.Format != TraceFormat {
		return nil, fmt.Errorf("not a saved trace of this version (format %q, want %q)", t.Format, TraceFormat)
	}
	return &t, nil
}

// TraceHref is the playground's URL of a trace's step n.
func TraceHref(n int) string { return "?trace=1&step=" + strconv.Itoa(n) }

// IsTrace reports whether a URL query asks for the opened trace.
func IsTrace(rawQuery string) bool { return parseQuery(rawQuery).get("trace") != "" }

// TraceStepOf is the step a trace URL asks for, 1 when it names none.
func TraceStepOf(rawQuery string) int {
	n, err := strconv.Atoi(parseQuery(rawQuery).get("step"))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// Page is the trace at step pos (clamped), as ui.TracePage draws it: the
// step list, the diagram and the cards of its exchange, the sequence so
// far. A nil or empty trace is a page that asks for one.
func (t *Trace) Page(pos int) ui.Page {
	p := ui.Page{Title: "A saved trace", About: "Open a trace saved on /live."}
	if t == nil || len(t.Steps) == 0 {
		return p
	}
	p.Title, p.Total = t.Title, len(t.Steps)
	p.Pos = min(max(pos, 1), p.Total)
	var seq []ui.SeqMsg
	for i, st := range t.Steps {
		cmd := traceCommand(st.Exchange)
		p.Steps = append(p.Steps, ui.StepItem{N: i + 1, Command: cmd, Current: i+1 == p.Pos, Href: TraceHref(i + 1)})
		if i < p.Pos {
			seq = append(seq, ui.SeqArrows(t.Steps[p.Pos-1].World, []ui.Exchange{st.Exchange}, i+1, cmd)...)
		}
	}
	cur := t.Steps[p.Pos-1]
	p.Step = &ui.StepView{N: p.Pos, Command: traceCommand(cur.Exchange), Exchanges: []ui.Exchange{cur.Exchange}}
	p.State, p.Sequence = cur.World, seq
	if p.Pos > 1 {
		p.PrevHref = TraceHref(p.Pos - 1)
	}
	if p.Pos < p.Total {
		p.NextHref = TraceHref(p.Pos + 1)
	}
	return p
}

// traceCommand names a step in the step list: who asked what.
func traceCommand(x ui.Exchange) string {
	s := x.Req
	if s == nil {
		s = x.Resp
	}
	if s == nil {
		return "(nothing)"
	}
	from := s.From
	if s.Msg.Response {
		from = s.To
	}
	return from + ": " + s.Msg.Describe
}
