//go:build js && wasm

package main

import (
	"strconv"
	"syscall/js"
)

// Every render replaces the page, and with it what the learner opened:
// the sequence view, the "show it" toggles. Elements marked data-keep
// keep their open or checked state from one render to the next.

// kept reads the state of the page's data-keep elements.
func kept() map[string]bool {
	out := map[string]bool{}
	els := app.Call("querySelectorAll", "[data-keep]")
	for i := 0; i < els.Length(); i++ {
		el := els.Index(i)
		out[el.Get("dataset").Get("keep").String()] = el.Get(keepProp(el)).Bool()
	}
	return out
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
// headers that stay on top. It runs after a render and when the
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
	}
}
