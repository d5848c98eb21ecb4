//go:build js && wasm

package main

import (
	"fmt"
	"strings"
	"syscall/js"
)

// Play advances the lesson by itself, one step every stepMs, and stops at
// the end; the speed control sets stepMs and --step-ms, the duration the
// page's CSS gives a step's animations. Under prefers-reduced-motion the
// animations take no time (the steps still wait stepMs, to be read).
var (
	playing bool
	stepMs  = 1200
	timer   js.Value
	tick    js.Func
)

func init() {
	tick = js.FuncOf(func(js.Value, []js.Value) any {
		defer func() {
			if r := recover(); r != nil {
				stop()
				showError(fmt.Sprint(r))
			}
		}()
		advance()
		return nil
	})
}

func toggle() {
	if playing {
		stop()
	} else {
		start()
	}
	syncPlay()
}

// start plays from the current step, or from the first at the end.
func start() {
	if session == nil || len(session.Items) < 2 {
		return
	}
	if session.Pos >= len(session.Items) {
		goTo(1)
	}
	playing = true
	schedule()
}

func stop() {
	playing = false
	if !timer.IsUndefined() && !timer.IsNull() {
		win.Call("clearTimeout", timer)
	}
	timer = js.Undefined()
}

func schedule() { timer = win.Call("setTimeout", tick, stepMs) }

// advance moves one step on while playing; the end stops it, and so does
// a question, which waits for the learner's prediction.
func advance() {
	if !playing || session == nil {
		return
	}
	goTo(session.Pos + 1)
	if session.Pos >= len(session.Items) || session.Predicting() {
		stop()
		syncPlay()
		return
	}
	schedule()
}

// syncPlay shows the play state and speed in the controls a render drew.
func syncPlay() {
	if b := doc.Call("getElementById", "play"); !b.IsNull() {
		b.Call("setAttribute", "aria-pressed", fmt.Sprint(playing))
		glyph, label := "▶", b.Get("dataset").Get("play").String()
		if playing {
			glyph, label = "❚❚", b.Get("dataset").Get("pause").String()
		}
		b.Set("innerHTML", `<span aria-hidden="true">`+glyph+`</span> `)
		b.Call("append", label)
	}
	if s := doc.Call("getElementById", "speed"); !s.IsNull() {
		s.Set("value", fmt.Sprint(stepMs))
	}
}

func setStepMs() {
	ms := stepMs
	if win.Call("matchMedia", "(prefers-reduced-motion: reduce)").Get("matches").Bool() {
		ms = 0
	}
	doc.Get("documentElement").Get("style").Call("setProperty", "--step-ms", fmt.Sprintf("%dms", ms))
}

// answer records the learner's prediction at the current step (a
// choice's index, or ui.Shown) and reveals the step, its verdict read out.
func answer(choice int) {
	session.Answer(choice)
	replaceURL()
	render()
	if v := app.Call("querySelector", ".question .verdict"); !v.IsNull() {
		v.Call("focus", map[string]any{"preventScroll": true})
		announce(v.Get("textContent").String())
	}
}

// complete handles Tab in the prompt: the word under the cursor is
// completed as far as the candidates agree, and the candidates are listed.
func complete(e js.Value, input js.Value) {
	line := input.Get("value").String()
	done, options := session.Complete(line, page.State)
	if len(options) == 0 && done == line {
		return // let Tab move the focus on
	}
	e.Call("preventDefault")
	input.Set("value", done)
	if el := doc.Call("getElementById", "completions"); !el.IsNull() {
		if len(options) > 1 {
			el.Set("textContent", strings.Join(options, "  "))
		} else {
			el.Set("textContent", "")
		}
	}
}

// onInput clears the listed completions as the learner types on.
func onInput(e js.Value) {
	if e.Get("target").Get("id").String() != "cmd" {
		return
	}
	if el := doc.Call("getElementById", "completions"); !el.IsNull() {
		el.Set("textContent", "")
	}
}

// focusKey names the focused control inside the app, so that the same
// control has the focus after a render replaced it.
func focusKey() string {
	el := doc.Get("activeElement")
	if el.IsNull() || !app.Call("contains", el).Bool() {
		return ""
	}
	css := js.Global().Get("CSS")
	if id := el.Get("id").String(); id != "" {
		return "#" + css.Call("escape", id).String()
	}
	if cmd := el.Call("getAttribute", "data-cmd"); !cmd.IsNull() {
		return fmt.Sprintf(`[data-cmd="%s"]`, css.Call("escape", cmd).String())
	}
	if li := el.Call("closest", ".steplist li"); !li.IsNull() {
		n := 1
		for p := li.Get("previousElementSibling"); !p.IsNull(); p = p.Get("previousElementSibling") {
			n++
		}
		return fmt.Sprintf(".steplist li:nth-child(%d) a", n)
	}
	return ""
}

func refocus(key string) {
	if key == "" {
		return
	}
	if el := app.Call("querySelector", key); !el.IsNull() {
		el.Call("focus", map[string]any{"preventScroll": true})
	}
}
