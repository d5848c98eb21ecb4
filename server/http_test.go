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
	"github.com/gregor-kafka/gregor/server/site"
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
	if strings.Contains(page, site.LoadingMark) {
		t.Errorf("the loading placeholder is still there")
	}
	if index := get("/"); !strings.Contains(index, `href="en/segments/"`) {
		t.Errorf("the lesson list is not prerendered")
	}
	// Every page at its path, as every home answers it (lessons/play's
	// Paths), the same bytes as its query URL of before.
	if page := get("/en/segments/4/"); page != get("/?lesson=segments&step=4&lang=en") {
		t.Errorf("/en/segments/4/ is not the page of ?lesson=segments&step=4&lang=en")
	}
	long := get("/?playground=1&cmds=" + strings.Repeat("broker,", 400))
	if !strings.Contains(long, site.LoadingMark) {
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
		{"/en/replication/2/", play.ClusterBundle, "topic orders partitions=1 rf=3"},
		{"/en/playground/?cmds=cluster+3", play.ClusterBundle, "registered and unfenced"},
		{"/embed/en/segments/4/", play.Bundle, "produce p1 orders"},
	} {
		page := get(tc.path)
		if want := `<html lang="en" data-bundle="` + tc.bundle + `">`; !strings.Contains(page, want) {
			t.Errorf("%s: the page lacks %s", tc.path, want)
		}
		if !strings.Contains(page, tc.shows) || strings.Contains(page, site.LoadingMark) {
			t.Errorf("%s: the first step is not prerendered (no %q)", tc.path, tc.shows)
		}
	}
}

// TestAssets: both wasm bundles are served as the gzip files they are,
// as a static host serves them (the page unzips them), revalidated by
// ETag.
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
	get := func(path string, header ...string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	for name := range bundles {
		resp, body := get("/assets/" + name + ".gz")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/gzip" || resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("%s.gz: %d, Content-Type %q, Content-Encoding %q", name, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"))
		}
		if !bytes.Equal(body, assets[name+".gz"].Data) {
			t.Errorf("%s.gz: the body is not the stored gzip", name)
		}
		if resp, _ := get("/assets/"+name+".gz", "If-None-Match", resp.Header.Get("ETag")); resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s.gz with its ETag: %d, want 304", name, resp.StatusCode)
		}
		if resp, _ := get("/assets/" + name); resp.StatusCode != 404 {
			t.Errorf("%s, not built as such, is served: %d", name, resp.StatusCode)
		}
	}
	if a, b := etagOf(t, srv.URL+"/assets/"+play.Bundle+".gz"), etagOf(t, srv.URL+"/assets/"+play.ClusterBundle+".gz"); a == b || a == "" {
		t.Errorf("the bundles share an ETag %q", a)
	}
}

// TestPagePaths: a path that names no page is a 404 page that says so
// (lessons/play's NoPage), in the browser's language; only embeds may be
// framed.
func TestPagePaths(t *testing.T) {
	srv := httptest.NewServer(WebHandler(gregor.IndexHTML, nil))
	defer srv.Close()
	get := func(path, accept string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Accept-Language", accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	for _, tc := range []struct {
		path, accept string
		status       int
		shows        string
	}{
		{"/en/segments/3/", "", 200, "Step 3 of"},
		{"/zh/segments/3", "", 200, "第 3 步"},
		{"/zh/", "", 200, "<h1>课程</h1>"},
		{"/en/nope/", "", 404, "No such lesson"},
		{"/en/segments/0/", "", 404, "There is no page at /en/segments/0/."},
		{"/fr/segments/", "zh-CN", 404, "没有这个页面"},
		{"/no/such/thing", "", 404, "No such page"},
		{"/s/unknown", "", 404, "No such saved link"},
	} {
		resp, body := get(tc.path, tc.accept)
		if resp.StatusCode != tc.status || !strings.Contains(body, tc.shows) {
			t.Errorf("%s: %d, want %d showing %q", tc.path, resp.StatusCode, tc.status, tc.shows)
		}
		if got := resp.Header.Get("Content-Security-Policy"); got != "frame-ancestors 'none'" || resp.Header.Get("X-Frame-Options") != "DENY" {
			t.Errorf("%s may be framed: CSP %q, X-Frame-Options %q", tc.path, got, resp.Header.Get("X-Frame-Options"))
		}
	}
	resp, body := get("/embed/en/segments/2/", "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != "frame-ancestors *" || resp.Header.Get("X-Frame-Options") != "" || !strings.Contains(body, "Step 2 of") {
		t.Errorf("embed: %d, CSP %q, X-Frame-Options %q", resp.StatusCode, resp.Header.Get("Content-Security-Policy"), resp.Header.Get("X-Frame-Options"))
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
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), `href="en/segments/"`) || !strings.Contains(string(body), "no-such-thing") {
		t.Errorf("unknown lesson: %d, lists the lessons: %v", resp.StatusCode, strings.Contains(string(body), `href="en/segments/"`))
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
		{"/", "zh-CN,zh;q=0.9,en;q=0.8", []string{`<html lang="zh-Hans"`, "<h1>课程</h1>", `href="zh/segments/"`, "日志段与索引"}, []string{"<h1>Lessons</h1>"}},
		{"/", "en-US,en;q=0.9", []string{`<html lang="en"`, "<h1>Lessons</h1>", `href="en/segments/"`}, []string{"日志段"}},
		{"/?lesson=segments&step=2", "zh-CN", []string{"<title>日志段与索引 — Gregor</title>", "第 2 步，共", `href="zh/segments/3/"`}, []string{"Step 2 of"}},
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
	if status != http.StatusOK || !bytes.Contains(page, []byte(site.LoadingMark)) {
		t.Errorf("with no slot free: status %d, rendered anyway", status)
	}
	if page, _ := prerender(gregor.IndexHTML, "lesson=segments&step=4"); bytes.Contains(page, []byte(site.LoadingMark)) {
		t.Errorf("with slots free again, the page is not rendered")
	}
}
