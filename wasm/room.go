//go:build js && wasm

package main

import (
	"context"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// The page's class (server/classroom, lessons/play.Class): Teach opens a
// room, and the page then sends its position on every render; a page
// served at /join/CODE (<html data-room>) joins the room as a student and
// shows the teacher's positions. The room bar lives in #room, outside the
// part a step's render replaces, so a head count never re-renders the
// lesson.
//
// The teacher's token is an HttpOnly cookie the server sets on POST
// /rooms, scoped to the room's socket: no script and no URL sees it. A
// teacher's page remembers only the room's code (sessionStorage), to
// rejoin after a reload or a hand-over to the cluster bundle.
var (
	class     *play.Class // nil outside a class
	sock      js.Value
	sockFns   []listener
	retries   int
	bigCode   bool // the teacher's join code over the page
	projector bool
)

// teachKey keeps the code of the room this tab teaches; detachedKey the
// code of the room whose teacher this tab's student has left.
const (
	teachKey    = "gregor-teach"
	detachedKey = "gregor-detached"
)

// startRoom joins the room the page is marked with, or rejoins the one
// this tab teaches; it reads projector=1 from the URL.
func startRoom() {
	setProjector(strings.Contains("&"+query()+"&", "&projector=1&"))
	if inRoomPage() {
		code := doc.Get("documentElement").Get("dataset").Get("room")
		class = play.NewClass(code.String(), false)
		if d := win.Get("sessionStorage").Call("getItem", detachedKey); d.Type() == js.TypeString && d.String() == class.Code {
			class.Detached()
		}
		connect()
		return
	}
	if code := win.Get("sessionStorage").Call("getItem", teachKey); code.Type() == js.TypeString {
		class = play.NewClass(code.String(), true)
		connect()
	}
}

// roomClick handles the room bar's buttons and Teach; it reports whether
// the click was one of them.
func roomClick(e js.Value) bool {
	b := closest(e, "[data-room-act]")
	if b.IsNull() {
		return false
	}
	switch b.Get("dataset").Get("roomAct").String() {
	case "teach":
		if class == nil {
			go openRoom()
		} else {
			bigCode = true
		}
	case "big":
		bigCode = !bigCode
	case "projector":
		setProjector(!projector)
	case "ask":
		if q, correct, ok := askable(); ok {
			send(class.AskQuestion(q, correct))
		}
	case "reveal":
		send(class.Reveal())
	case "answer":
		n, _ := strconv.Atoi(b.Get("dataset").Get("choice").String())
		send(class.Answer(n))
	case "detach":
		detach()
	case "follow":
		win.Get("sessionStorage").Call("removeItem", detachedKey)
		msg, p := class.Follow()
		send(msg)
		if p != nil {
			showPosition(p)
		}
	}
	drawRoom()
	return true
}

// openRoom asks the server for a room (POST /rooms; it answers with the
// code and sets the teacher's cookie), then connects to it.
func openRoom() {
	lang := pageLang()
	resp, err := await(win.Call("fetch", "/rooms", map[string]any{"method": "POST", "credentials": "same-origin"}))
	if err == nil {
		switch status := resp.Get("status").Int(); {
		case status == 404 || status == 405 || status == 501: // a static host: no rooms here
			showNotice(ui.NoticeView{Text: ui.Tr(lang, "A class needs a Gregor server to run it, and this copy of the playground has none: run `make run` (or bin/gregor serve) and press Teach on its page.")})
			return
		case !resp.Get("ok").Bool():
			text, _ := await(resp.Call("text"))
			err = jsError(resp.Get("status").String() + " " + text.String())
		}
	}
	var body js.Value
	if err == nil {
		body, err = await(resp.Call("json"))
	}
	if err != nil {
		showNotice(ui.NoticeView{Text: ui.Trf(lang, "Could not open a class: %s", err.Error())})
		return
	}
	code := body.Get("code").String()
	win.Get("sessionStorage").Call("setItem", teachKey, code)
	class, bigCode = play.NewClass(code, true), true
	connect()
	drawRoom()
}

type jsError string

func (e jsError) Error() string { return string(e) }

// await waits for a promise; only a goroutine may (the event loop must
// run meanwhile).
func await(p js.Value) (js.Value, error) {
	done := make(chan struct{})
	var val js.Value
	var err error
	ok := js.FuncOf(func(_ js.Value, a []js.Value) any { val = a[0]; close(done); return nil })
	fail := js.FuncOf(func(_ js.Value, a []js.Value) any {
		err = jsError(a[0].Call("toString").String())
		close(done)
		return nil
	})
	defer ok.Release()
	defer fail.Release()
	p.Call("then", ok, fail)
	<-done
	return val, err
}

// connect opens the room's socket; the teacher's cookie (if any) makes it
// the teacher's.
func connect() {
	proto := "ws://"
	if win.Get("location").Get("protocol").String() == "https:" {
		proto = "wss://"
	}
	dropSocket()
	sock = js.Global().Get("WebSocket").New(proto + win.Get("location").Get("host").String() + "/rooms/" + class.Code + "/ws")
	sockFns = []listener{
		sockOn("open", func(js.Value) {
			retries = 0
			send(class.Opened())
			syncRoom()
		}),
		sockOn("message", func(e js.Value) {
			p, err := class.Receive([]byte(e.Get("data").String()))
			if err != nil {
				js.Global().Get("console").Call("warn", err.Error())
			}
			if p != nil {
				showPosition(p)
			}
			syncRoom()
		}),
		sockOn("close", func(e js.Value) { lost(e.Get("code").Int(), e.Get("reason").String()) }),
	}
	drawRoom()
}

func sockOn(event string, fn func(js.Value)) listener {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any { fn(args[0]); return nil })
	sock.Call("addEventListener", event, f)
	return listener{target: sock, event: event, fn: f}
}

// dropSocket forgets the current socket: its events no longer reach
// this page's class.
func dropSocket() {
	for _, l := range sockFns {
		l.target.Call("removeEventListener", l.event, l.fn)
		l.fn.Release()
	}
	sockFns = nil
}

// lost handles a closed socket: a room that is gone (expired, unknown) or
// taught from another tab stays closed; anything else reconnects, backing
// off to 10 s. A reconnecting student gets the current position first.
func lost(code int, reason string) {
	final := code == 1001 || strings.HasPrefix(reason, "no class") || strings.Contains(reason, "has closed") || strings.Contains(reason, "elsewhere")
	why := "disconnected"
	if reason != "" {
		why = "disconnected: " + reason
	}
	if final {
		if class.Teacher {
			win.Get("sessionStorage").Call("removeItem", teachKey)
		}
		class.Lost(why, true)
		drawRoom()
		return
	}
	class.Lost(why+"; reconnecting…", false)
	drawRoom()
	retries++
	wait := min(10000, 500<<min(retries, 5))
	var again js.Func
	again = js.FuncOf(func(js.Value, []js.Value) any {
		again.Release()
		if class != nil {
			connect()
		}
		return nil
	})
	win.Call("setTimeout", again, wait)
}

// leaveRoom closes the socket before this build hands the page over to
// the cluster bundle, which joins the room again.
func leaveRoom() {
	if class == nil || sock.IsUndefined() {
		return
	}
	dropSocket() // no reconnect from here
	sock.Call("close", 1000, "the page loads the cluster bundle")
	class = nil
}

// send writes a message to the room, if connected.
func send(msg []byte) {
	if msg != nil && class != nil && !sock.IsUndefined() && sock.Get("readyState").Int() == 1 {
		sock.Call("send", string(msg))
	}
}

// syncRoom sends the teacher's position when it changed, and redraws the
// room bar.
func syncRoom() {
	if class == nil {
		return
	}
	if class.Teacher && session != nil {
		send(class.Sync(session.Position(lang())))
	}
	drawRoom()
}

// roomMoved is called when the learner moved the page; a following
// student leaves the teacher by doing so.
func roomMoved() {
	if class != nil && !class.Teacher {
		detach()
		drawRoom()
	}
}

// detach leaves the teacher, also for the page's next load.
func detach() {
	if msg := class.Detach(); msg != nil {
		win.Get("sessionStorage").Call("setItem", detachedKey, class.Code)
		send(msg)
	}
}

// showPosition shows the teacher's position on a student's page.
func showPosition(p *play.Position) {
	stop()
	setURL(false, hrefOf(play.PositionQuery(*p)))
	route()
}

// askable is the question the teacher may ask now.
func askable() (play.Question, int, bool) {
	if class == nil || !class.Teacher || session == nil {
		return play.Question{}, 0, false
	}
	return session.Ask(lang())
}

// lang is the page's language: the URL's lang, else <html lang>.
func lang() string {
	for _, kv := range strings.Split(query(), "&") {
		if v, ok := strings.CutPrefix(kv, "lang="); ok && v != "" {
			return v
		}
	}
	return doc.Get("documentElement").Get("lang").String()
}

// drawRoom renders the room bar into #room.
func drawRoom() {
	el := doc.Call("getElementById", "room")
	if el.IsNull() {
		return
	}
	if class == nil {
		el.Set("innerHTML", "")
		return
	}
	var ask *play.Question
	if q, _, ok := askable(); ok {
		ask = &q
	}
	loc := win.Get("location")
	v := class.View(loc.Get("protocol").String()+"//"+loc.Get("host").String()+"/join/"+class.Code, ask)
	v.Big = bigCode && class.Teacher
	host := loc.Get("hostname").String()
	v.Loopback = host == "localhost" || host == "[::1]" || strings.HasPrefix(host, "127.")
	v.Projector = projector
	var sb strings.Builder
	if err := ui.InLang(lang(), ui.RoomBar(v)).Render(context.Background(), &sb); err != nil {
		showError(err.Error())
		return
	}
	el.Set("innerHTML", sb.String())
}

// setProjector turns projector mode on or off: large type, high contrast,
// the diagram first, side panels folded (index.html's CSS).
func setProjector(on bool) {
	projector = on
	ds := doc.Get("documentElement").Get("dataset")
	if on {
		ds.Set("projector", "1")
	} else {
		ds.Delete("projector")
	}
}
