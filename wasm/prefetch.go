//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// While the learner reads a step, the page draws the one they will most
// likely go to, the next in the direction they last moved (forward at
// first), in an idle moment, so that Next (or Back, going back) only puts
// the markup in the page. A drawing is kept under what
// decides it: the session's URL at that step (play's invariant: the same
// URL gives the same page) and what the learner has open; anything else,
// a What-if, an answer, another lesson, finds nothing kept and draws anew.
var ahead drawnAhead

type drawnAhead struct {
	kept    map[string]drawing
	pending js.Value // the idle callback scheduled, if any
	fn      js.Func
	back    bool // the learner's last move was back
}

// moved notes a move from step from to step to.
func (a *drawnAhead) moved(from, to int) { a.back = to < from }

// key names a session's step as drawn: its URL and the folds open.
func key(s *play.Session, f ui.Folds) string { return fmt.Sprintf("%s|%+v", s.Query(s.Pos), f) }

// take is the drawing kept for the session's current step, if any (none
// with a refused command to show).
func (a *drawnAhead) take(s *play.Session, typed, rejected string) (drawing, bool) {
	if typed != "" || rejected != "" || a.kept == nil {
		return drawing{}, false
	}
	k := key(s, folds())
	d, ok := a.kept[k]
	delete(a.kept, k) // its fragment goes into the page
	return d, ok
}

// schedule asks for an idle moment to draw the step ahead; what was kept
// for other steps is dropped.
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
	keepOnly := map[string]drawing{}
	if s, ok := a.next(); ok {
		if d, ok := a.kept[key(s, folds())]; ok {
			keepOnly[key(s, folds())] = d
		}
		a.idle()
	}
	a.kept = keepOnly
}

// next is the session at the step ahead, if there is one.
func (a *drawnAhead) next() (*play.Session, bool) {
	n := session.Pos + 1
	if a.back {
		n = session.Pos - 1
	}
	if n < 1 || n > len(session.Items) {
		return nil, false
	}
	c := *session
	c.Pos, c.PastEnd = n, false
	return &c, true
}

// idleWithin bounds the wait for an idle moment, in ms. A page that
// draws no frames (a step without messages animates nothing) may get no
// idle period at all: headless chromium gave none for over a second, and
// the next key press then drew its step on the spot (450 ms on
// replica-placement). Past this, drawOne runs as an ordinary task, still
// long before a learner has read the step.
const idleWithin = 200

// idle schedules drawOne for the browser's next idle moment, or at most
// idleWithin ms from now.
func (a *drawnAhead) idle() {
	if !a.pending.IsUndefined() && !a.pending.IsNull() {
		return
	}
	if ric := win.Get("requestIdleCallback"); ric.Type() == js.TypeFunction {
		a.pending = win.Call("requestIdleCallback", a.fn, map[string]any{"timeout": idleWithin})
	} else {
		a.pending = win.Call("setTimeout", a.fn, 50)
	}
}

// drawOne draws the step ahead, unless it is drawn.
func (a *drawnAhead) drawOne() {
	if session == nil {
		return
	}
	if s, ok := a.next(); ok {
		if k := key(s, folds()); a.kept[k].html == "" {
			d := draw(s, "", "")
			d.parsed = win.Call("gregorParse", d.html)
			a.kept[k] = d
		}
	}
}
