package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gregor-kafka/gregor"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/play"
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
	if index := get("/"); !strings.Contains(index, `href="?lesson=segments&amp;lang=en"`) {
		t.Errorf("the lesson list is not prerendered")
	}
	long := get("/?playground=1&cmds=" + strings.Repeat("broker,", 400))
	if !strings.Contains(long, loadingMark) {
		t.Errorf("a query over %d bytes must not be replayed by the server", maxPrerenderQuery)
	}

	// The loader fetches the bundle that <html data-bundle> names: the
	// cluster bundle where the page runs a multi-broker world, whose first
	// step the server renders too.
	for _, tc := range []struct{ path, bundle, shows string }{
		{"/", play.Bundle, "Segments and indexes"},
		{"/?lesson=segments&step=4", play.Bundle, "produce p1 orders"},
		{"/?lesson=replication&step=2", play.ClusterBundle, "topic orders partitions=1 rf=3"},
		{"/?lesson=leader-election", play.ClusterBundle, "cluster 3"},
		{"/?playground=1&cmds=cluster+3", play.ClusterBundle, "registered and unfenced"},
		{"/?playground=1&cmds=broker", play.Bundle, "broker"},
	} {
		page := get(tc.path)
		if want := `<html lang="en" data-bundle="` + tc.bundle + `">`; !strings.Contains(page, want) {
			t.Errorf("%s: the page lacks %s", tc.path, want)
		}
		if !strings.Contains(page, tc.shows) || strings.Contains(page, loadingMark) {
			t.Errorf("%s: the first step is not prerendered (no %q)", tc.path, tc.shows)
		}
	}
}

// TestAssets: both wasm bundles are served from their .gz with the wasm
// content type, gzip-encoded or unzipped for a client that refuses gzip.
func TestAssets(t *testing.T) {
	bundles := map[string][]byte{
		play.Bundle:        []byte("\x00asm default"),
		play.ClusterBundle: []byte("\x00asm cluster, with the quorum"),
	}
	assets := fstest.MapFS{"wasm_exec.js": {Data: []byte("// Go's loader")}}
	for name, raw := range bundles {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(raw)
		zw.Close()
		assets[name+".gz"] = &fstest.MapFile{Data: gz.Bytes()}
	}
	srv := httptest.NewServer(WebHandler(gregor.IndexHTML, assets))
	defer srv.Close()
	tr := &http.Transport{DisableCompression: true} // see the encoding as sent
	get := func(path, acceptEncoding string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	for name, raw := range bundles {
		resp, body := get("/assets/"+name, "gzip, deflate, br")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/wasm" || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Errorf("%s: %d, Content-Type %q, Content-Encoding %q, Vary %q", name, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
		}
		if !bytes.Equal(body, assets[name+".gz"].Data) {
			t.Errorf("%s: the body is not the stored gzip", name)
		}
		resp, body = get("/assets/"+name, "identity")
		if resp.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, raw) {
			t.Errorf("%s without gzip: Content-Encoding %q, body %q", name, resp.Header.Get("Content-Encoding"), body)
		}
		if resp, _ := get("/assets/"+name+".gz", "gzip"); resp.StatusCode != 404 {
			t.Errorf("%s.gz itself is served: %d", name, resp.StatusCode)
		}
	}
	if a, b := etagOf(t, srv.URL+"/assets/"+play.Bundle), etagOf(t, srv.URL+"/assets/"+play.ClusterBundle); a == b || a == "" {
		t.Errorf("the bundles share an ETag %q", a)
	}
}

// TestLessonScripts: the browser build fetches a lesson's script from
// /assets/lessons/SLUG.txt, the same bytes the native build replays;
// anything else there is 404.
func TestLessonScripts(t *testing.T) {
	srv := httptest.NewServer(WebHandler(gregor.IndexHTML, nil))
	defer srv.Close()
	for _, m := range lessons.Catalog {
		resp, err := http.Get(srv.URL + "/assets/lessons/" + m.Slug + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, _ := lessons.Script(m.Slug)
		if resp.StatusCode != 200 || !bytes.Equal(body, want) || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
			t.Errorf("%s: %d %q, %d bytes (want %d)", m.Slug, resp.StatusCode, resp.Header.Get("Content-Type"), len(body), len(want))
		}
	}
	for _, bad := range []string{"no-such-lesson.txt", "segments", "..%2Flessons.go", "segments.txt.gz"} {
		resp, err := http.Get(srv.URL + "/assets/lessons/" + bad)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", bad, resp.StatusCode)
		}
	}
}

func etagOf(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("ETag")
}

// TestUnknownLessonAndGzip: a URL naming no lesson answers 404 with the
// lesson list; HTML goes gzipped to a client that accepts it, plain to
// one that does not.
func TestUnknownLessonAndGzip(t *testing.T) {
	srv := httptest.NewServer(WebHandler(gregor.IndexHTML, nil))
	defer srv.Close()
	fetch := func(path, encoding string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		if encoding != "" {
			req.Header.Set("Accept-Encoding", encoding) // set by hand: the transport leaves the body as sent
		}
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	resp, body := fetch("/?lesson=no-such-thing", "identity")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `href="?lesson=segments&amp;lang=en"`) || !strings.Contains(string(body), "no-such-thing") {
		t.Errorf("unknown lesson: %d, lists the lessons: %v", resp.StatusCode, strings.Contains(string(body), `href="?lesson=segments&amp;lang=en"`))
	}
	if resp, _ := fetch("/?lesson=segments", "identity"); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("a lesson, without gzip: %d, Content-Encoding %q", resp.StatusCode, resp.Header.Get("Content-Encoding"))
	}
	resp, body = fetch("/?lesson=segments&step=3", "gzip, br")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("Content-Encoding %q, want gzip", resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(zr)
	if !strings.Contains(string(plain), "produce p1 orders") {
		t.Errorf("the gzipped page lacks the step")
	}
	t.Logf("a lesson's first paint: %d bytes, %d gzipped", len(plain), len(body))
}

// TestPrerenderLanguage: a URL without lang is served in the language the
// browser prefers (Accept-Language), a URL with one in that language,
// and the page's links carry it.
func TestPrerenderLanguage(t *testing.T) {
	srv := httptest.NewServer(WebHandler(gregor.IndexHTML, nil))
	defer srv.Close()
	get := func(path, accept string) string {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Accept-Language", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if v := resp.Header.Get("Vary"); !strings.Contains(v, "Accept-Language") {
			t.Errorf("%s: Vary %q lacks Accept-Language", path, v)
		}
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	for _, tc := range []struct {
		path, accept string
		want, lacks  []string
	}{
		{"/", "zh-CN,zh;q=0.9,en;q=0.8", []string{`<html lang="zh-Hans"`, "<h1>课程</h1>", `href="?lesson=segments&amp;lang=zh"`, "日志段与索引"}, []string{"<h1>Lessons</h1>"}},
		{"/", "en-US,en;q=0.9", []string{`<html lang="en"`, "<h1>Lessons</h1>", `href="?lesson=segments&amp;lang=en"`}, []string{"日志段"}},
		{"/?lesson=segments&step=2", "zh-CN", []string{"<title>日志段与索引 — Gregor</title>", "第 2 步，共", "&amp;lang=zh"}, []string{"Step 2 of"}},
		{"/?lesson=segments&step=2&lang=en", "zh-CN", []string{"<title>Segments and indexes — Gregor</title>", "Step 2 of"}, []string{"第 2 步"}},
		{"/?lesson=nope&lang=zh", "", []string{"没有这节课", "现有的课程："}, []string{"No such lesson"}},
	} {
		page := get(tc.path, tc.accept)
		for _, w := range tc.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s (Accept-Language %q) lacks %q", tc.path, tc.accept, w)
			}
		}
		for _, l := range tc.lacks {
			if strings.Contains(page, l) {
				t.Errorf("%s (Accept-Language %q) has %q", tc.path, tc.accept, l)
			}
		}
	}
}

// TestPrerenderBudget: the URL (a cluster advanced by hours) is
// refused with 422 and a page that says which limit it hit, quickly,
// instead of seconds of CPU per advance.
func TestPrerenderBudget(t *testing.T) {
	srv := httptest.NewServer(WebHandler(gregor.IndexHTML, nil))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/?playground=1&cmds=cluster+3" + strings.Repeat(",advance+2h", 10))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "the clock may not pass 1h of simulated time") {
		t.Fatalf("status %d, body:\n%.2000s", resp.StatusCode, body)
	}

	// With every replay slot taken, a page is served unrendered, at once.
	for range cap(prerenderSlots) {
		prerenderSlots <- struct{}{}
	}
	page, status := prerender(gregor.IndexHTML, "lesson=segments&step=4")
	for range cap(prerenderSlots) {
		<-prerenderSlots
	}
	if status != http.StatusOK || !bytes.Contains(page, []byte(loadingMark)) {
		t.Errorf("with no slot free: status %d, rendered anyway", status)
	}
	if page, _ := prerender(gregor.IndexHTML, "lesson=segments&step=4"); bytes.Contains(page, []byte(loadingMark)) {
		t.Errorf("with slots free again, the page is not rendered")
	}
}
