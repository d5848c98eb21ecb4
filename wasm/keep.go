//go:build js && wasm

package main

import (
	"strconv"
	"syscall/js"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// A render may replace any part of the page (gregorMorph keeps only what
// is unchanged), and with it what the learner opened:
// the sequence view, the "show it" toggles. Elements marked data-keep
// keep their open or checked state from one render to the next, and
// past a step without them (a step with no background traffic).
var keep = map[string]bool{}

// kept reads the state of the page's data-keep elements into keep.
func kept() map[string]bool {
	els := app.Call("querySelectorAll", "[data-keep]")
	for i := 0; i < els.Length(); i++ {
		el := els.Index(i)
		keep[el.Get("dataset").Get("keep").String()] = el.Get(keepProp(el)).Bool()
	}
	return keep
}

// restore gives the new page's data-keep elements their kept state.
func restore(state map[string]bool) {
	els := app.Call("querySelectorAll", "[data-keep]")
	for i := 0; i < els.Length(); i++ {
		el := els.Index(i)
		if v, ok := state[el.Get("dataset").Get("keep").String()]; ok {
			el.Set(keepProp(el), v)
		}
	}
}

func keepProp(el js.Value) string {
	if el.Get("tagName").String() == "DETAILS" {
		return "open"
	}
	return "checked"
}

// folds is what the page has open of the parts drawn only while open
// (ui.Folds), as the learner left them.
func folds() ui.Folds {
	kept()
	return ui.Folds{Sequence: keep["seq"], AllTraffic: keep["seq-all"], Transcript: keep["transcript"]}
}

// onToggle draws a part drawn only while open (data-lazy) when the
// learner opens it, and scrolls the sequence to the current step.
func onToggle(e js.Value) {
	t := e.Get("target")
	if t.Get("open").Bool() && t.Call("hasAttribute", "data-lazy").Bool() {
		redraw()
		return
	}
	scrollSequence()
}

// redraw draws the page again with what the learner has open now.
func redraw() {
	kept()
	switch {
	case session != nil:
		render()
	case play.IsTrace(query()):
		showTrace()
	}
}

// scrollSequence scrolls each sequence drawing to the current step's
// first row (ui/sequence.templ marks it data-current), below the lane
// headers that stay on top, and sideways to its first message's sender
// (data-current-x; on a wide screen there is nothing to scroll). It runs after a render and when the
// sequence is opened or unfolded (a hidden drawing has no layout).
func scrollSequence() {
	boxes := app.Call("querySelectorAll", ".seq[open] .seq-scroll") // a closed one has no layout to force
	for i := 0; i < boxes.Length(); i++ {
		box := boxes.Index(i)
		y, err := strconv.Atoi(box.Get("dataset").Get("current").String())
		if err != nil {
			continue
		}
		box.Set("scrollTop", y)
		if x, err := strconv.Atoi(box.Get("dataset").Get("currentX").String()); err == nil {
			box.Set("scrollLeft", x)
		}
	}
}
