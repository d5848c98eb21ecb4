package live

import (
	_ "embed"
	"net/http"
)

//go:embed page.html
var page []byte

// ServePage is GET /live: a plain page that lists the events as they
// happen, with the filters, pause and the skipped counter. It needs no
// wasm; the diagram views will come from ui/.
func ServePage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(page)
}
