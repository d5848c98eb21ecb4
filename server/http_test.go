package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor"
)

// TestPrerender: the page served for a lesson URL already holds that step,
// rendered natively by the same components the wasm uses.
func TestPrerender(t *testing.T) {
	srv := httptest.NewServer(WebHandler(gregor.IndexHTML, nil))
	defer srv.Close()
	get := func(path string) string {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	page := get("/?lesson=segments&step=4")
	for _, want := range []string{"<title>Segments and indexes — Gregor</title>", "produce p1 orders", "Produce"} {
		if !strings.Contains(page, want) {
			t.Errorf("the prerendered step lacks %q", want)
		}
	}
	if strings.Contains(page, loadingMark) {
		t.Errorf("the loading placeholder is still there")
	}
	if index := get("/"); !strings.Contains(index, `href="?lesson=segments"`) {
		t.Errorf("the lesson list is not prerendered")
	}
	long := get("/?playground=1&cmds=" + strings.Repeat("broker,", 400))
	if !strings.Contains(long, loadingMark) {
		t.Errorf("a query over %d bytes must not be replayed by the server", maxPrerenderQuery)
	}
}
