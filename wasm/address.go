//go:build js && wasm

package main

import "syscall/js"

// The address bar follows the session one paint late. Writing it
// (history.replaceState, a same-document navigation) is a round trip to
// the browser process: 1 to 17 ms of a step's key handler in chromium's
// traces, before the learner saw anything. A step now paints first and
// records its URL in a task posted from the next animation frame, which
// runs once that frame is painted. Whatever reads the location flushes the
// pending address first (pageQuery, Save's fallback link), so the page
// never acts on an address it has left; window.gregorURLPending tells the
// browser tests to wait for it.
var (
	pendingURL string
	flushLater js.Func // the animation frame's callback: post flushURL
	flushNow   js.Func
)

// replaceURL records the session in the address bar without a new
// history entry, so a copied link replays exactly this: after the next
// paint (see above).
func replaceURL() {
	roomMoved()
	first := pendingURL == ""
	pendingURL = hrefOf(session.Query(session.Pos))
	win.Set("gregorURLPending", true)
	if !first {
		return // the frame asked for writes the latest
	}
	if flushLater.IsUndefined() {
		flushNow = js.FuncOf(func(js.Value, []js.Value) any { flushURL(); return nil })
		flushLater = js.FuncOf(func(js.Value, []js.Value) any {
			win.Call("setTimeout", flushNow, 0)
			return nil
		})
	}
	win.Call("requestAnimationFrame", flushLater)
}

// flushURL writes the pending address, if any.
func flushURL() {
	if pendingURL == "" {
		return
	}
	u := pendingURL
	pendingURL = ""
	win.Get("history").Call("replaceState", nil, "", u) // not setURL: this is the flush
	win.Set("gregorURLPending", false)
}

// setURL writes the address bar now, after the pending address (which
// belongs to the history entry being left, so that Back returns to the
// step the learner was on): a new history entry with push, else the
// current one.
func setURL(push bool, u string) {
	flushURL()
	method := "replaceState"
	if push {
		method = "pushState"
	}
	win.Get("history").Call(method, nil, "", u)
}

// dropURL forgets the pending address: the learner went Back or Forward
// within a frame of a step, and the entry it belonged to is no longer
// the current one (writing it would overwrite the entry now shown).
func dropURL() {
	pendingURL = ""
	win.Set("gregorURLPending", false)
}
