//go:build js && wasm

package main

import (
	"errors"
	"slices"
	"syscall/js"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/play"
)

// The lesson scripts are not in the bundle (lessons/scripts_js.go): the
// page fetches the one a URL names, once, from assets/lessons/ (the
// loader in index.html starts on the first page's while the bundle
// downloads), and hands it to lessons.Provide before anything parses the
// URL's session.

// missingScript is the lesson q names when its script is not here yet; ""
// when there is none to fetch (the list, the playground, a slug not in
// the catalog, which is a 404 page of its own).
func missingScript(q string) string {
	slug := play.LessonSlug(q)
	if slug == "" || lessons.Provided(slug) || !slices.ContainsFunc(lessons.Catalog, func(m lessons.Meta) bool { return m.Slug == slug }) {
		return ""
	}
	return slug
}

// loadScript fetches slug's script, provides it, and calls done (on the
// event loop: done may not block).
func loadScript(slug string, done func(error)) {
	var ok, fail js.Func
	release := func() { ok.Release(); fail.Release() }
	ok = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		lessons.Provide(slug, []byte(args[0].String()))
		done(nil)
		return nil
	})
	fail = js.FuncOf(func(_ js.Value, args []js.Value) any {
		release()
		done(errors.New(args[0].Call("toString").String()))
		return nil
	})
	win.Call("gregorScript", slug).Call("then", ok, fail)
}
