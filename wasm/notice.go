//go:build js && wasm

package main

import (
	"context"
	"strings"
	"syscall/js"

	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/ui"
)

// The notice over the page (index.html's #notice, ui.Notice): what Save
// and Teach did. Save keeps the page's link on the home that served it
// (POST api/saved: the native server, the Worker) and shows the short
// link it answers with; the page goes on from what it sent and never reads
// the link back. A home that keeps no links (a static host) answers
// otherwise, and the notice then shows the whole link, which holds
// everything a saved one does.

// showNotice draws n over the page; a zero n takes it away.
func showNotice(n ui.NoticeView) {
	el := doc.Call("getElementById", "notice")
	if el.IsNull() {
		return
	}
	if n.Text == "" {
		el.Set("innerHTML", "")
		return
	}
	var sb strings.Builder
	if err := ui.InLang(pageLang(), ui.Notice(n)).Render(context.Background(), &sb); err != nil {
		showError(err.Error())
		return
	}
	el.Set("innerHTML", sb.String())
	announce(n.Text)
	if in := doc.Call("getElementById", "notice-link"); !in.IsNull() {
		in.Call("focus")
		in.Call("select")
	}
}

// noticeClick handles Save and the notice's buttons; it reports whether
// the click was one of them.
func noticeClick(e js.Value) bool {
	if !closest(e, "[data-save]").IsNull() {
		if session != nil {
			go save()
		}
		return true
	}
	b := closest(e, "[data-notice-act]")
	if b.IsNull() {
		return false
	}
	switch b.Get("dataset").Get("noticeAct").String() {
	case "copy":
		in := doc.Call("getElementById", "notice-link")
		if !in.IsNull() {
			in.Call("select")
			if cb := win.Get("navigator").Get("clipboard"); !cb.IsUndefined() {
				cb.Call("writeText", in.Get("value"))
			}
			announce(ui.Tr(pageLang(), "Copied."))
		}
	case "close":
		showNotice(ui.NoticeView{})
	}
	return true
}

// save sends the page's link, with the lesson's version, to api/saved.
func save() {
	lang := pageLang()
	rel := hrefOf(session.Query(session.Pos))
	if session.Lesson != nil {
		sep := "?"
		if strings.Contains(rel, "?") {
			sep = "&"
		}
		rel += sep + link.VersionParam + "=" + session.Lesson.Version
	}
	body := js.Global().Get("JSON").Call("stringify", map[string]any{"link": rel})
	resp, err := await(win.Call("fetch", "api/saved", map[string]any{
		"method": "POST", "body": body, "headers": map[string]any{"Content-Type": "application/json"},
	}))
	flushURL()
	whole := ui.NoticeView{Text: ui.Tr(lang, "This site keeps no saved links, so here is the whole link: it holds this step, your steps and your answers."), Link: win.Get("location").Get("href").String()}
	if err != nil {
		showNotice(whole)
		return
	}
	status := resp.Get("status").Int()
	ans, err := await(resp.Call("json"))
	switch {
	case err != nil || status == 404 || status == 405 || status == 501:
		showNotice(whole) // not a home that keeps links
	case status == 201:
		short := js.Global().Get("URL").New(ans.Get("path").String(), doc.Get("baseURI")).Get("href").String()
		showNotice(ui.NoticeView{Text: ui.Tr(lang, "Saved: this short link opens this step again, with your steps and answers."), Link: short})
	case status == 409:
		showNotice(ui.NoticeView{Text: ui.Tr(lang, "The lesson has changed since this page loaded: reload the page, then save.")})
	default:
		msg := ans.Get("error")
		text := resp.Get("statusText").String()
		if msg.Type() == js.TypeString {
			text = msg.String()
		}
		showNotice(ui.NoticeView{Text: ui.Trf(lang, "Could not save: %s", text), Link: whole.Link})
	}
}
