//go:build js && wasm

// Command wasm is Gregor in the browser: the lessons and the playground,
// with the whole engine running in the page. It reads the URL, replays the
// lesson (or the playground's commands) to the step asked for, and renders
// it with the ui components. After load the only server calls are for
// lesson scripts, which the bundle does not hold (scripts.go).
//
// It is built twice (Makefile): gregor.wasm without the metadata quorum,
// and gregor-cluster.wasm with it. A page that runs a multi-broker world
// (play.NeedsQuorum) needs the second; the server marks such pages so the
// loader fetches it straight away, and gregor.wasm, when it meets one
// anyway (a static copy of the page, a `cluster` command typed in the
// playground), hands the page over: it stops listening, asks the loader
// for the cluster bundle, and exits.
//
// syscall/js lives only here; everything it drives is pure Go (lessons/play,
// ui, lessons, core).
package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall/js"

	"github.com/a-h/templ"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

var (
	doc     = js.Global().Get("document")
	win     = js.Global()
	app     js.Value
	session *play.Session // nil on the lesson list
	// timeline keeps the steps run so far, across sessions: stepping back
	// is a lookup, forward runs only the new commands (play.Timeline).
	timeline = new(play.Timeline)
	rendered bool

	// page is the page on screen (its state names what Tab completes);
	// typed and rejected are the learner's command the engine refused and
	// its answer, for the next render only.
	page            ui.Page
	typed, rejected string

	listeners []listener
	// handover is closed when this build meets a page it cannot run; main
	// then passes the page to the cluster bundle.
	handover = make(chan struct{})
)

type listener struct {
	target  js.Value
	event   string
	fn      js.Func
	capture bool
}

func main() {
	win.Set("gregorMainStart", win.Get("performance").Call("now"))
	app = doc.Call("getElementById", "app")
	if slug := missingScript(query()); slug != "" {
		// Deciding which bundle runs the page needs its script; a
		// failure is shown by route, which asks again.
		loaded := make(chan struct{})
		loadScript(slug, func(error) { close(loaded) })
		<-loaded
	}
	if needsCluster(query()) {
		startCluster()
		return
	}
	on(doc, "click", onClick)
	on(doc, "submit", onSubmit)
	on(doc, "change", onChange)
	on(doc, "keydown", onKey)
	on(doc, "input", onInput)
	// A part drawn only while open was opened (toggle does not bubble:
	// listen while capturing): it is drawn now (keep.go).
	onCapture(doc, "toggle", onToggle)
	setStepMs()
	on(win, "popstate", func(js.Value) { dropURL(); route() })
	route()
	startRoom()
	<-handover
	leaveRoom()
	for _, l := range listeners {
		l.target.Call("removeEventListener", l.event, l.fn, l.capture)
		l.fn.Release()
	}
	startCluster()
}

func on(target js.Value, event string, fn func(js.Value)) { listen(target, event, fn, false) }

func onCapture(target js.Value, event string, fn func(js.Value)) { listen(target, event, fn, true) }

// listen calls fn on each event, showing what panics in the page; it
// records when the last handler started and ended (window.gregorHandled),
// which the browser tests' stepping benchmark reads.
func listen(target js.Value, event string, fn func(js.Value), capture bool) {
	f := js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer func() {
			if r := recover(); r != nil {
				showError(fmt.Sprint(r))
			}
		}()
		start := now()
		fn(args[0])
		win.Set("gregorHandled", []any{start, now()})
		return nil
	})
	target.Call("addEventListener", event, f, capture)
	listeners = append(listeners, listener{target, event, f, capture})
}

// needsCluster reports whether a page needs what this build leaves out:
// the metadata quorum of multi-broker worlds, which only the cluster
// bundle carries (etcd raft would add 1 MB to every page's download).
func needsCluster(q string) bool { return !sim.HasQuorum && play.NeedsQuorum(q) }

// handOver gives the current URL's page to the cluster bundle: the page
// stays as it is, with a note, until that bundle renders it.
func handOver() {
	select {
	case <-handover:
		return // already on its way
	default:
	}
	doc.Get("documentElement").Get("dataset").Delete("ready")
	if app.Call("querySelector", ":scope > .loading").IsNull() {
		app.Call("insertAdjacentHTML", "afterbegin", `<p class="switching" role="status"></p>`)
		app.Call("querySelector", ".switching").Set("textContent", ui.Tr(pageLang(), "Loading the engine with the metadata quorum for multi-broker worlds…"))
	}
	close(handover)
}

// startCluster asks the page's loader (index.html) for the cluster bundle.
func startCluster() { win.Call("gregorStart", play.ClusterBundle) }

// siteRoot is the site's root path as the page names it (<base href>):
// "/" on the native server and the Worker, "/REPO/" on a project's GitHub
// Pages. Every link the page makes is relative to it (play's Paths).
func siteRoot() string {
	return js.Global().Get("URL").New(doc.Get("baseURI")).Get("pathname").String()
}

// relPath is the path of u (a location or a URL) relative to the site's
// root; "" at the root itself or outside it.
func relPath(u js.Value) string {
	p, root := u.Get("pathname").String(), siteRoot()
	if rel, ok := strings.CutPrefix(p, root); ok {
		return rel
	}
	return ""
}

// pageQuery is the session the page's URL names, as a query (play's
// FromPath); ok is false when its path names no page.
func pageQuery() (string, bool) {
	flushURL()
	loc := win.Get("location")
	return link.FromPath(relPath(loc), strings.TrimPrefix(loc.Get("search").String(), "?"))
}

func query() string { q, _ := pageQuery(); return q }

// inRoomPage reports whether the page is a class's join page
// (/join/CODE), which keeps its address and moves in the query.
func inRoomPage() bool {
	return doc.Get("documentElement").Get("dataset").Get("room").Type() == js.TypeString
}

// hrefOf is the address bar's URL for a query: its path (play's
// Canonical, relative to the site's root), or, on a class's join page,
// that page's own path with the query.
func hrefOf(q string) string {
	if inRoomPage() {
		return win.Get("location").Get("pathname").String() + "?" + q
	}
	return play.Canonical(q)
}

// pageLang is the language the URL asks for, or the browser's.
func pageLang() string {
	return ui.Lang(play.Parse(play.WithLang(query(), browserLang())).Lang)
}

// browserLang is the learner's language as the browser states it.
func browserLang() string { return ui.PickLang(win.Get("navigator").Get("language").String()) }

// route renders whatever the current URL asks for, in the URL's language;
// a URL without one gets the browser's. The address bar then shows the
// page's path (play's Paths), so that every link and a copied URL keep
// it: a query URL of before becomes its path.
func route() {
	q, ok := pageQuery()
	if !ok {
		session = nil
		stop()
		lang := browserLang()
		setLang(lang)
		show(play.NoPage(relPath(win.Get("location")), lang))
		return
	}
	q = play.WithLang(q, browserLang())
	if want, loc := hrefOf(q), win.Get("location"); js.Global().Get("URL").New(want, doc.Get("baseURI")).Get("href").String() != loc.Get("href").String() {
		setURL(false, want)
	}
	if slug := missingScript(q); slug != "" {
		loadScript(slug, func(err error) {
			if err != nil {
				showError(err.Error())
				return
			}
			route() // the URL as it is now: the learner may have moved on
		})
		return
	}
	if needsCluster(q) {
		handOver()
		return
	}
	if play.IsTrace(q) {
		session = nil
		stop()
		showTrace()
		return
	}
	if play.IsIndex(q) || play.NotFound(q) {
		session = nil
		stop()
		setLang(play.Parse(q).Lang)
		show(play.View(q))
		return
	}
	session = play.Parse(q)
	render()
}

// render shows the session's current step: drawn ahead while the learner
// read the step before (prefetch.go), or now. It records what it took
// (window.gregorLastRenderMs) and where (gregorRenderParts: the page from
// the kept timeline, templ, the DOM; zero for what was drawn ahead), for
// the browser tests and their benchmark.
func render() {
	start := now()
	defer func() { win.Set("gregorLastRenderMs", now()-start) }()
	d, ok := ahead.take(session, typed, rejected)
	if !ok {
		d = draw(session, typed, rejected)
		parts[0], parts[1] = d.pageMs, d.templMs
	}
	typed, rejected = "", ""
	page = d.page
	mark("gregorReplayed")
	setLang(d.page.Lang)
	showHTML(d.markup(), d.title)
	syncPlay()
	if d.page.Step != nil {
		announce(ui.Trf(d.page.Lang, "Step %d of %d: %s", d.page.Pos, d.page.Total, d.page.Step.Command))
	}
	ahead.schedule()
}

// drawing is a session's step as the page shows it: the page, and its
// markup and title, with what building and rendering them took. A step
// drawn ahead also has its markup parsed ahead (parsed, a fragment the
// page's gregorMorph takes apart, so a drawing is shown at most once).
type drawing struct {
	page            ui.Page
	html, title     string
	parsed          js.Value
	pageMs, templMs float64
}

// markup is what showHTML puts in the page: the fragment parsed ahead,
// or the markup.
func (d drawing) markup() any {
	if d.parsed.Truthy() {
		return d.parsed
	}
	return d.html
}

// draw builds a session's step from the kept timeline and renders it,
// with what the learner has open (folds) and a command the engine refused
// left in the prompt.
func draw(s *play.Session, typed, rejected string) drawing {
	start := now()
	p := s.PageOn(timeline)
	p.Folds = folds()
	p.Typed, p.Rejected = typed, rejected
	built := now()
	c, title := play.LessonView(p)
	var sb strings.Builder
	if err := c.Render(context.Background(), &sb); err != nil {
		panic(err) // the components render any page: a broken invariant
	}
	return drawing{page: p, html: sb.String(), title: title, pageMs: built - start, templMs: now() - built}
}

// setLang sets the document's language (<html lang>), only when it
// changes: the document's language is inherited by
// every element, so writing it restyles the whole page.
func setLang(lang string) {
	el, l := doc.Get("documentElement"), ui.HTMLLang(lang)
	if el.Get("lang").String() != l {
		el.Set("lang", l)
	}
}

// announce tells screen readers what changed (index.html's live region,
// outside the part every render replaces).
func announce(msg string) {
	if el := doc.Call("getElementById", "announce"); !el.IsNull() {
		el.Set("textContent", msg)
	}
}

// mark records the first time a point of the first render is reached, for
// the browser test's measurements.
func mark(name string) {
	if !rendered {
		win.Set(name, win.Get("performance").Call("now"))
	}
}

// parts is where the current render's time went (see render): the page,
// templ, the DOM.
var parts [3]float64

func now() float64 { return win.Get("performance").Call("now").Float() }

// show renders a component (the lesson list, a page that names nothing,
// a trace) into the page.
func show(c templ.Component, title string) {
	var sb strings.Builder
	if err := c.Render(context.Background(), &sb); err != nil {
		showError(err.Error())
		return
	}
	showHTML(sb.String(), title)
}

// showHTML puts markup in the page (a string, or a fragment gregorParse
// made of one), keeping what the learner opened and where the focus was.
func showHTML(html any, title string) {
	mark("gregorTemplated")
	focused, open := focusKey(), kept()
	t := now()
	win.Call("gregorMorph", app, html)
	parts[2] = now() - t
	win.Set("gregorRenderParts", []any{parts[0], parts[1], parts[2], win.Get("gregorMorphed")})
	parts = [3]float64{}
	restore(open)
	scrollSequence()
	refocus(focused)
	doc.Set("title", title)
	syncRoom()
	if !rendered {
		rendered = true
		t := now()
		win.Set("gregorFirstRender", t)
		doc.Get("documentElement").Get("dataset").Set("ready", "1")
		js.Global().Get("console").Call("log", fmt.Sprintf("gregor: first render %.1f ms after navigation start", t))
	}
}

func showError(msg string) {
	lang := pageLang()
	app.Set("innerHTML", `<main class="index"><p class="error" role="alert"></p><p><a href="`+lang+`/"></a></p></main>`)
	app.Call("querySelector", ".error").Set("textContent", ui.Trf(lang, "Something broke: %s", msg))
	app.Call("querySelector", ".index a").Set("textContent", ui.Tr(lang, "All lessons"))
}

func closest(e js.Value, sel string) js.Value {
	t := e.Get("target")
	if t.IsNull() || t.IsUndefined() || t.Get("closest").IsUndefined() {
		return js.Null()
	}
	return t.Call("closest", sel)
}

func onClick(e js.Value) {
	if e.Get("button").Int() != 0 || e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool() || e.Get("shiftKey").Bool() {
		return // let the browser open links in a new tab
	}
	if roomClick(e) || noticeClick(e) {
		return
	}
	if a := closest(e, "a[data-nav]"); !a.IsNull() {
		e.Call("preventDefault")
		roomMoved()
		navigate(a.Call("getAttribute", "href").String())
		return
	}
	if b := closest(e, "#play"); !b.IsNull() && session != nil {
		toggle()
		return
	}
	if b := closest(e, "[data-cmd]"); !b.IsNull() && session != nil {
		run(b.Get("dataset").Get("cmd").String(), false)
		return
	}
	if b := closest(e, ".question [data-answer]"); !b.IsNull() && session != nil {
		n, _ := strconv.Atoi(b.Get("dataset").Get("answer").String())
		answer(n)
		return
	}
	if b := closest(e, "[data-remove]"); !b.IsNull() && session != nil {
		n, _ := strconv.Atoi(b.Get("dataset").Get("remove").String())
		session.Remove(n)
		update()
	}
}

// run adds the learner's command after the current step, if the engine
// accepts it; a rejected one stays out of the URL, and a typed one stays
// in the prompt with the engine's answer. A command that starts a cluster
// goes to the cluster bundle as it is.
func run(cmd string, wasTyped bool) {
	if !sim.HasQuorum && sim.StartsCluster(strings.TrimSpace(cmd)) {
		session.Insert(cmd)
		update()
		return
	}
	msg := session.Try(cmd, timeline)
	if msg == "" {
		update()
		return
	}
	if wasTyped {
		typed = cmd
	}
	rejected = msg
	render()
}

// update records a changed session in the URL and renders it, or hands it
// to the cluster bundle if it now starts a cluster.
func update() {
	replaceURL()
	if needsCluster(session.Query(session.Pos)) {
		handOver()
		return
	}
	render()
}

// navigate follows an in-app link (relative to the site's root): a step
// of the same lesson replaces the history entry, anything else pushes one.
// A page this build cannot run, or a link that names no page of the
// playground, is loaded anew, so that a server renders it (while the
// cluster bundle loads).
func navigate(href string) {
	u := js.Global().Get("URL").New(href, doc.Get("baseURI"))
	q, ok := link.FromPath(relPath(u), strings.TrimPrefix(u.Get("search").String(), "?"))
	if !ok || needsCluster(q) {
		win.Get("location").Call("assign", u.Get("href"))
		return
	}
	same := session != nil && !play.IsIndex(q) && sameSession(session, play.Parse(q))
	url := hrefOf(play.WithLang(q, browserLang()))
	if same {
		setURL(false, url)
	} else {
		setURL(true, url)
	}
	route()
	if !same {
		win.Call("scrollTo", 0, 0)
	}
}

func sameSession(a, b *play.Session) bool {
	if a.Playground || b.Playground {
		return a.Playground == b.Playground
	}
	return a.Lesson != nil && b.Lesson != nil && a.Lesson.Slug == b.Lesson.Slug
}

func onSubmit(e js.Value) {
	if e.Get("target").Get("id").String() != "cmdform" || session == nil {
		return
	}
	e.Call("preventDefault")
	cmd := doc.Call("getElementById", "cmd").Get("value").String()
	run(cmd, true)
	if in := doc.Call("getElementById", "cmd"); !in.IsNull() {
		in.Call("focus")
	}
}

func onChange(e js.Value) {
	t := e.Get("target")
	if traceChange(t) {
		return
	}
	if t.Get("classList").Call("contains", "seq-all-toggle").Bool() {
		redraw()
		return
	}
	if t.Get("id").String() == "speed" {
		if ms, err := strconv.Atoi(t.Get("value").String()); err == nil {
			stepMs = ms
			setStepMs()
		}
		return
	}
	if t.Get("id").String() != "jump" || session == nil {
		return
	}
	n, err := strconv.Atoi(t.Get("value").String())
	if err != nil {
		return
	}
	goTo(n)
	if r := doc.Call("getElementById", "jump"); !r.IsNull() {
		r.Call("focus")
	}
}

func goTo(n int) {
	if n < 1 || n > len(session.Items) {
		return
	}
	ahead.moved(session.Pos, n)
	session.Pos, session.PastEnd = n, false
	replaceURL()
	render()
}

func onKey(e js.Value) {
	if session == nil && !e.Get("altKey").Bool() && !e.Get("ctrlKey").Bool() && !e.Get("metaKey").Bool() && traceArrow(e.Get("key").String()) {
		return
	}
	if session == nil || e.Get("altKey").Bool() || e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool() {
		return
	}
	target := e.Get("target")
	if target.Get("id").String() == "cmd" && e.Get("key").String() == "Tab" && !e.Get("shiftKey").Bool() {
		complete(e, target)
		return
	}
	tag := target.Get("tagName").String()
	if tag == "INPUT" || tag == "TEXTAREA" || tag == "SELECT" {
		return
	}
	if e.Get("key").String() == " " && tag != "BUTTON" && tag != "A" && tag != "SUMMARY" && !doc.Call("getElementById", "play").IsNull() {
		e.Call("preventDefault") // not a scroll
		toggle()
		return
	}
	switch e.Get("key").String() {
	case "ArrowLeft":
		goTo(session.Pos - 1)
	case "ArrowRight":
		goTo(session.Pos + 1)
	}
}
