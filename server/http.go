package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"html"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/server/access"
	"github.com/gregor-kafka/gregor/server/classroom"
	"github.com/gregor-kafka/gregor/server/live"
	"github.com/gregor-kafka/gregor/ui"
)

// routes is the HTTP side of `gregor serve`: the playground, a health
// check and the Prometheus metrics (metrics.go), open to all unless
// MetricsNeedToken; the live trace and opening a class, for the operator
// (package access); a class's join page and socket, for whoever has its
// code (package classroom).
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", WebHandler(s.cfg.IndexHTML, s.cfg.Assets))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	op := access.Guard{Token: s.cfg.OperatorToken}
	s.e.trace.Peers = s.cfg.HTTPPeers // before any watcher: read only after
	mux.HandleFunc("/login", op.ServeLogin)
	mux.Handle("GET /live", op.Only(http.HandlerFunc(live.ServePage)))
	mux.Handle("GET /live/style.css", live.StyleFrom(s.cfg.IndexHTML))
	mux.Handle("GET /live/ws", op.Only(http.HandlerFunc(s.e.trace.ServeWS)))
	if s.e.metrics != nil {
		metrics := s.e.metrics.handler()
		if s.cfg.MetricsNeedToken {
			metrics = op.Only(metrics)
		}
		mux.Handle("GET /metrics", metrics)
	}
	rooms := classroom.NewHub(classroom.Config{Page: func(q string) []byte { page, _ := prerender(s.cfg.IndexHTML, q); return page }})
	mux.Handle("POST /rooms", op.Only(http.HandlerFunc(rooms.ServeOpen)))
	mux.HandleFunc("GET /join/{code}", rooms.ServeJoin)
	mux.HandleFunc("GET /rooms/{code}/ws", rooms.ServeWS)
	return mux
}

// WebHandler serves the browser playground: index.html at / (whatever the
// query: the page reads it) and the browser build under /assets/. The
// build holds two wasm bundles (play.Bundle, and play.ClusterBundle for
// the pages that run a multi-broker world), each only gzipped, as
// NAME.wasm.gz; a bundle is sent as is with Content-Encoding: gzip, or
// unzipped for the rare client that does not accept gzip. assets may be
// nil or lack the build (`make wasm` was not run); the page then says so.
func WebHandler(index []byte, assets fs.FS) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		h.Set("Vary", "Accept-Encoding, Accept-Language")
		// A URL without a lang is shown in the browser's (the wasm
		// picks the same from navigator.language).
		q := play.WithLang(r.URL.RawQuery, ui.PickLang(r.Header.Get("Accept-Language")))
		page, status := prerender(index, q)
		writeText(w, r, status, page)
	})
	a := &assetServer{fs: assets}
	mux.HandleFunc("GET /assets/{name}", a.serve)
	mux.HandleFunc("GET /assets/lessons/{name}", serveScript)
	return mux
}

// serveScript sends a lesson's script (SLUG.txt), which the browser build
// fetches before it opens the lesson: the scripts are not in the bundle
// (lessons/scripts_js.go).
func serveScript(w http.ResponseWriter, r *http.Request) {
	slug, ok := strings.CutSuffix(r.PathValue("name"), ".txt")
	raw, err := lessons.Script(slug)
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Vary", "Accept-Encoding")
	writeText(w, r, http.StatusOK, raw)
}

// writeText sends a page or a script, gzipped when the client accepts it
// (a lesson's first paint is mostly repeated markup: about a tenth of its
// size).
func writeText(w http.ResponseWriter, r *http.Request, status int, page []byte) {
	if !acceptsGzip(r) {
		w.WriteHeader(status)
		w.Write(page)
		return
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	zw.Write(page)
	zw.Close()
	w.Header().Set("Content-Encoding", "gzip")
	w.Header().Set("Content-Length", strconv.Itoa(gz.Len()))
	w.WriteHeader(status)
	w.Write(gz.Bytes())
}

// loadingMark is the placeholder in index.html that the first render
// replaces.
const loadingMark = `<p class="loading">Loading the engine…</p>`

// maxPrerenderQuery bounds the URLs the server replays itself: a lesson
// link with a few of the learner's steps, not an arbitrary script.
const maxPrerenderQuery = 2048

// prerenderSlots bounds the replays running at once, server-wide.
var prerenderSlots = make(chan struct{}, max(1, runtime.NumCPU()/2))

// bundleMark is the attribute in index.html that names the wasm bundle the
// page's loader fetches.
func bundleMark(bundle string) []byte { return []byte(`data-bundle="` + bundle + `"`) }

// prerender puts the page the query asks for into index.html, rendered
// natively by the same ui components the wasm uses, so the first step
// shows as soon as the HTML arrives; the wasm then takes over the same
// markup. A page that runs a multi-broker world is marked for the cluster
// bundle, so the loader fetches that one straight away. It returns the
// status to answer with: 404 for a lesson that does not exist (the page
// lists those that do), 422 for a query over play.ServerBudget (the page
// says which limit). A query too long to replay here, or one that fails
// to render, gets the plain page, which the wasm renders on its own
// (handing over to the cluster bundle itself if the page needs it).
//
// At most prerenderSlots queries replay at once; a query that finds them
// all taken gets the plain page too, so a flood of URLs costs the server
// a bounded share of its CPU (each replay is bounded by the budget).
func prerender(index []byte, query string) ([]byte, int) {
	if len(query) > maxPrerenderQuery || !bytes.Contains(index, []byte(loadingMark)) {
		return index, http.StatusOK
	}
	select {
	case prerenderSlots <- struct{}{}:
		defer func() { <-prerenderSlots }()
	default:
		return index, http.StatusOK
	}
	comp, title, status := play.Render(query, play.ServerBudget)
	var body bytes.Buffer
	if err := comp.Render(context.Background(), &body); err != nil {
		return index, http.StatusOK
	}
	out := bytes.Replace(index, []byte(loadingMark), body.Bytes(), 1)
	if lang := ui.HTMLLang(play.Parse(query).Lang); lang != "en" {
		out = bytes.Replace(out, []byte(`<html lang="en"`), []byte(`<html lang="`+lang+`"`), 1)
	}
	if b := play.BundleFor(query); b != play.Bundle {
		out = bytes.Replace(out, bundleMark(play.Bundle), bundleMark(b), 1)
	}
	return replaceTitle(out, title), status
}

// replaceTitle sets the page's <title>.
func replaceTitle(page []byte, title string) []byte {
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

type assetServer struct {
	fs   fs.FS
	mu   sync.Mutex
	tags map[string]string // file -> ETag
}

func (a *assetServer) serve(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if a.fs == nil || strings.HasSuffix(name, ".gz") {
		http.NotFound(w, r)
		return
	}
	gz := false
	data, err := fs.ReadFile(a.fs, name)
	if err != nil {
		if data, err = fs.ReadFile(a.fs, name+".gz"); err != nil {
			http.Error(w, name+" is not built: run `make wasm`", http.StatusNotFound)
			return
		}
		gz = true
	}
	h := w.Header()
	ctype := mime.TypeByExtension(path.Ext(name))
	if path.Ext(name) == ".wasm" {
		ctype = "application/wasm"
	}
	h.Set("Content-Type", ctype)
	h.Set("Cache-Control", "no-cache") // revalidate: cheap with the ETag
	h.Set("ETag", a.etag(name, data))
	if gz {
		h.Set("Vary", "Accept-Encoding")
	}
	if match := r.Header.Get("If-None-Match"); match != "" && match == h.Get("ETag") {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if gz && !acceptsGzip(r) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.Copy(w, zr)
		return
	}
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}

func (a *assetServer) etag(name string, data []byte) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if t, ok := a.tags[name]; ok {
		return t
	}
	if a.tags == nil {
		a.tags = map[string]string{}
	}
	sum := sha256.Sum256(data)
	a.tags[name] = `"` + hex.EncodeToString(sum[:12]) + `"`
	return a.tags[name]
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(enc) == "gzip" && strings.ReplaceAll(strings.TrimSpace(q), " ", "") != "q=0" {
			return true
		}
	}
	return false
}
