// Package site makes the playground's pages: the page a URL shows, with
// its first step rendered natively by the same ui components the wasm
// renders with (for the native server and for a static host alike), the
// headers every home sends with them, and the whole playground as static
// files (Build) that any static host serves as they are.
//
// # Invariants
//
//   - A page is index.html with the view of its URL in place of the
//     loading mark, its language, its title and the bundle that runs it:
//     the native server and a static copy send the same bytes for the
//     same path (given the same site root).
//   - Only embeds may be framed (FrameHeaders).
package site

import (
	"bytes"
	"context"
	"html"
	"net/http"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// LoadingMark is the placeholder in index.html that a page's first render
// replaces; a page without it (a copy of index.html from elsewhere) is
// served as it is.
const LoadingMark = `<p class="loading">Loading the engine…</p>`

// baseMark is index.html's site root (<base href>): every link and asset
// of a page is relative to it.
const baseMark = `<base href="/">`

// bundleMark is the attribute in index.html that names the wasm bundle the
// page's loader fetches.
func bundleMark(bundle string) []byte { return []byte(`data-bundle="` + bundle + `"`) }

// Page puts what a query shows into index.html, rendered natively within
// b, so that the step shows as soon as the HTML arrives; the wasm then
// takes over the same markup. A page that runs a multi-broker world is
// marked for the cluster bundle, so that the loader fetches that one
// straight away. It returns the status to answer with: 404 for a lesson
// that does not exist (the page lists those that do), 422 for a query
// over b (the page says which limit). A page that fails to render is the
// plain page, which the wasm renders on its own.
func Page(index []byte, query string, b play.Budget) ([]byte, int) {
	if !bytes.Contains(index, []byte(LoadingMark)) {
		return index, http.StatusOK
	}
	comp, title, status := play.Render(query, b)
	var body bytes.Buffer
	if err := comp.Render(context.Background(), &body); err != nil {
		return index, http.StatusOK
	}
	return assemble(index, query, body.Bytes(), title), status
}

// assemble is index.html showing body, the rendered view of query: in
// the query's language, with its title, marked for the bundle that runs
// it.
func assemble(index []byte, query string, body []byte, title string) []byte {
	out := bytes.Replace(index, []byte(LoadingMark), body, 1)
	out = setLang(out, play.Parse(query).Lang)
	if bundle := play.BundleFor(query); bundle != play.Bundle {
		out = bytes.Replace(out, bundleMark(play.Bundle), bundleMark(bundle), 1)
	}
	return setTitle(out, title)
}

// NoPage is the page for a path that names none (play.NoPage), in lang,
// answered with 404.
func NoPage(index []byte, path, lang string) []byte {
	comp, title := play.NoPage(path, lang)
	var body bytes.Buffer
	if err := comp.Render(context.Background(), &body); err != nil || !bytes.Contains(index, []byte(LoadingMark)) {
		return index
	}
	out := bytes.Replace(index, []byte(LoadingMark), body.Bytes(), 1)
	return setTitle(setLang(out, lang), title)
}

// WithRoot sets a page's site root: root is the path the site is served
// under, "/" or "/REPO/" (a project's GitHub Pages).
func WithRoot(page []byte, root string) []byte {
	return bytes.Replace(page, []byte(baseMark), []byte(`<base href="`+html.EscapeString(root)+`">`), 1)
}

// setLang sets <html lang> to the page's language.
func setLang(page []byte, lang string) []byte {
	if l := ui.HTMLLang(lang); l != "en" {
		return bytes.Replace(page, []byte(`<html lang="en"`), []byte(`<html lang="`+l+`"`), 1)
	}
	return page
}

// setTitle sets the page's <title>.
func setTitle(page []byte, title string) []byte {
	start := bytes.Index(page, []byte("<title>"))
	end := bytes.Index(page, []byte("</title>"))
	if start < 0 || end < start {
		return page
	}
	var out bytes.Buffer
	out.Write(page[:start+len("<title>")])
	out.WriteString(html.EscapeString(title))
	out.Write(page[end:])
	return out.Bytes()
}

// FrameHeaders are the headers every page is sent with, where the host
// lets Gregor set them (the native server, the Worker's _headers; not
// GitHub Pages): an embed may be framed by any site, every other page by
// none (clickjacking), and no response is sniffed as another type.
func FrameHeaders(embed bool) http.Header {
	h := http.Header{}
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
	if embed {
		h.Set("Content-Security-Policy", "frame-ancestors *")
	} else {
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "frame-ancestors 'none'")
	}
	return h
}
