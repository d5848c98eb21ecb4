package play

import (
	"strings"

	"github.com/a-h/templ"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/ui"
)

// View is what a URL query shows: the lesson list, or a lesson or the
// playground at a step, with the page title. The wasm renders it in the
// browser; the native server renders the very same component into the page
// it serves, so the first step is on screen before the wasm has loaded
// (Render, within the server's budget). It speaks the URL's lang (English
// without one: see WithLang).
func View(rawQuery string) (templ.Component, string) {
	comp, title, _ := Render(rawQuery, Budget{})
	return comp, title
}

// LessonView is a lesson's page in its language, with its title: the
// whole page, or an embed's compact view.
func LessonView(p ui.Page) (templ.Component, string) {
	if p.Embed {
		return ui.InLang(p.Lang, ui.Embed(p)), p.Title + " — Gregor"
	}
	return ui.InLang(p.Lang, ui.Lesson(p)), p.Title + " — Gregor"
}

// NotFound reports whether a URL names a lesson that does not exist: the
// server answers 404 with the lesson list.
func NotFound(rawQuery string) bool {
	return !IsIndex(rawQuery) && Parse(rawQuery).missing()
}

// NoPage is the answer to a path that names no page (FromPath is not
// ok), in lang: a saved link (s/ID) that is not kept, or any other path,
// with the lesson list.
func NoPage(path, lang string) (templ.Component, string) {
	l := ui.Lang(lang)
	if strings.HasPrefix(strings.TrimPrefix(path, "/"), "s/") {
		return ui.InLang(l, ui.Refused(ui.Tr(l, "No such saved link"), ui.Tr(l, "Nothing is saved under this link: it was mistyped, or never saved."), Index(l))), ui.Tr(l, "No such saved link — Gregor")
	}
	return ui.InLang(l, ui.Refused(ui.Tr(l, "No such page"), ui.Trf(l, "There is no page at %s.", "/"+strings.TrimPrefix(path, "/")), Index(l))), ui.Tr(l, "No such page — Gregor")
}

func (s *Session) missing() bool { return s.Lesson == nil && !s.Playground && s.Err != "" }

// The browser's two builds of the engine (Makefile, `make wasm`), as the
// server's /assets/ names them. Bundle runs every page but those that
// NeedsQuorum names; ClusterBundle adds the metadata quorum (etcd raft)
// for them, and is fetched only there.
const (
	Bundle        = "gregor.wasm"
	ClusterBundle = "gregor-cluster.wasm"
)

// Budgets are the most each bundle may weigh gzipped, as served (zopfli's
// gzip, `make wasm`): the download before a page is interactive. The root
// package's test holds `make test` to them.
var Budgets = map[string]int{Bundle: 2_500_000, ClusterBundle: 3_500_000}

// BundleFor names the browser build that can run a URL's page.
func BundleFor(rawQuery string) string {
	if NeedsQuorum(rawQuery) {
		return ClusterBundle
	}
	return Bundle
}

// NeedsQuorum reports whether a URL's timeline starts a multi-broker world
// (the `cluster` command), which needs the metadata quorum.
func NeedsQuorum(rawQuery string) bool {
	if IsIndex(rawQuery) {
		return false
	}
	for _, it := range Parse(rawQuery).Items {
		if sim.StartsCluster(it.Cmd) {
			return true
		}
	}
	return false
}
