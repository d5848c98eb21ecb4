//go:build js && wasm

package main

import (
	"strconv"
	"syscall/js"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// A trace saved on /live (play.Trace), stepped through at ?trace=1&step=N
// like a lesson. The file the learner opens stays in the tab
// (sessionStorage, when it fits), so a reload shows it again.
var (
	openTrace *play.Trace
	traceErr  string
)

const traceKey = "gregor-trace"

// showTrace renders the open trace at the URL's step.
func showTrace() {
	if openTrace == nil {
		if saved := win.Get("sessionStorage").Call("getItem", traceKey); saved.Type() == js.TypeString {
			openTrace, _ = play.ParseTrace([]byte(saved.String()))
		}
	}
	p := openTrace.Page(play.TraceStepOf(query()))
	p.Error, traceErr = traceErr, ""
	p.Folds = folds()
	show(ui.TracePage(p), p.Title+" — Gregor")
}

// traceChange handles the trace page's file input and step slider; it
// reports whether the event was theirs.
func traceChange(t js.Value) bool {
	if !play.IsTrace(query()) {
		return false
	}
	switch t.Get("id").String() {
	case "tracefile":
		if files := t.Get("files"); files.Length() > 0 {
			go readTrace(files.Index(0))
		}
	case "jump":
		n, _ := strconv.Atoi(t.Get("value").String())
		traceGo(n)
	default:
		return false
	}
	return true
}

// traceArrow moves through the trace with the arrow keys.
func traceArrow(key string) bool {
	if !play.IsTrace(query()) || openTrace == nil {
		return false
	}
	n := play.TraceStepOf(query())
	switch key {
	case "ArrowLeft":
		traceGo(n - 1)
	case "ArrowRight":
		traceGo(n + 1)
	default:
		return false
	}
	return true
}

func traceGo(n int) {
	if openTrace == nil || n < 1 || n > len(openTrace.Steps) {
		return
	}
	setURL(false, play.TraceHref(n))
	showTrace()
}

// readTrace opens a trace file the learner chose.
func readTrace(file js.Value) {
	text, err := await(file.Call("text"))
	var t *play.Trace
	if err == nil {
		t, err = play.ParseTrace([]byte(text.String()))
	}
	if err != nil {
		traceErr = file.Get("name").String() + ": " + err.Error()
		showTrace()
		return
	}
	openTrace = t
	func() {
		defer func() { recover() }() // a trace too large for sessionStorage is kept in memory only
		win.Get("sessionStorage").Call("setItem", traceKey, text)
	}()
	setURL(false, play.TraceHref(1))
	showTrace()
}
