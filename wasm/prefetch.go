//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// While the learner reads a step, the page draws the steps either side of
// it (the next first), each in an idle moment of its own, so that Next and
// Back only put the markup in the page. A drawing is kept under what
// decides it: the session's URL at that step (play's invariant: the same
// URL gives the same page) and what the learner has open; anything else,
// a What-if, an answer, another lesson, finds nothing kept and draws anew.
var ahead drawnAhead

type drawnAhead struct {
	kept    map[string]drawing
	pending js.Value // the idle callback scheduled, if any
	fn      js.Func
}

// key names a session's step as drawn: its URL and the folds open.
func key(s *play.Session, f ui.Folds) string { return fmt.Sprintf("%s|%+v", s.Query(s.Pos), f) }

// take is the drawing kept for the session's current step, if any (none
// with a refused command to show).
func (a *drawnAhead) take(s *play.Session, typed, rejected string) (drawing, bool) {
	if typed != "" || rejected != "" || a.kept == nil {
		return drawing{}, false
	}
	d, ok := a.kept[key(s, folds())]
	return d, ok
}

// schedule asks for idle moments to draw the current step's neighbours;
// what was kept for other steps is dropped.
func (a *drawnAhead) schedule() {
	if session == nil {
		return
	}
	if a.fn.IsUndefined() {
		a.fn = js.FuncOf(func(js.Value, []js.Value) any {
			a.pending = js.Undefined()
			a.drawOne()
			return nil
		})
	}
	next := a.neighbours()
	keepOnly := map[string]drawing{}
	for _, s := range next {
		if d, ok := a.kept[key(s, folds())]; ok {
			keepOnly[key(s, folds())] = d
		}
	}
	a.kept = keepOnly
	a.idle()
}

// neighbours are the sessions at the steps after and before the current
// one.
func (a *drawnAhead) neighbours() []*play.Session {
	var out []*play.Session
	for _, n := range []int{session.Pos + 1, session.Pos - 1} {
		if n >= 1 && n <= len(session.Items) {
			c := *session
			c.Pos, c.PastEnd = n, false
			out = append(out, &c)
		}
	}
	return out
}

// idle schedules drawOne for the browser's next idle moment.
func (a *drawnAhead) idle() {
	if !a.pending.IsUndefined() && !a.pending.IsNull() {
		return
	}
	if ric := win.Get("requestIdleCallback"); ric.Type() == js.TypeFunction {
		a.pending = win.Call("requestIdleCallback", a.fn, map[string]any{"timeout": 1000})
	} else {
		a.pending = win.Call("setTimeout", a.fn, 50)
	}
}

// drawOne draws the first neighbour not drawn yet, and asks for another
// idle moment if one is left.
func (a *drawnAhead) drawOne() {
	if session == nil {
		return
	}
	f := folds()
	for _, s := range a.neighbours() {
		k := key(s, f)
		if _, ok := a.kept[k]; ok {
			continue
		}
		a.kept[k] = draw(s, "", "")
		a.idle()
		return
	}
}
