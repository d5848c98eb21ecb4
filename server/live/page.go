package live

import (
	"bytes"
	_ "embed"
	"net/http"
)

//go:embed page.html
var page []byte

// ServePage is GET /live: the latest exchanges drawn by the lessons' views
// (the server renders them: Recent), and every event listed as it
// happens, with the filters, pause and the skipped counter. It needs no
// wasm.
func ServePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(page)
}

// StyleFrom serves the playground page's style sheet (the <style> of
// index, the page the lessons run in), so that /live draws its diagram
// and message cards exactly as the lessons do.
func StyleFrom(index []byte) http.HandlerFunc {
	var css []byte
	if _, after, ok := bytes.Cut(index, []byte("<style>")); ok {
		css, _, _ = bytes.Cut(after, []byte("</style>"))
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		w.Write(css)
	}
}
