//go:build js && wasm

package main

import (
	"strconv"
	"syscall/js"
)

// Every render replaces the page, and with it what the learner opened:
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

// scrollSequence scrolls each sequence drawing to the current step's
// first row (ui/sequence.templ marks it data-current), below the lane
// headers that stay on top, and sideways to its first message's sender
// (data-current-x; on a wide screen there is nothing to scroll). It runs after a render and when the
// sequence is opened or unfolded (a hidden drawing has no layout).
func scrollSequence() {
	boxes := app.Call("querySelectorAll", ".seq-scroll")
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
