package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/server/access"
	"github.com/gregor-kafka/gregor/server/classroom"
	"github.com/gregor-kafka/gregor/server/live"
	"github.com/gregor-kafka/gregor/server/site"
	"github.com/gregor-kafka/gregor/ui"
)

// routes is the HTTP side of `gregor serve`: the playground and its saved
// links (package saved), a health check and the Prometheus metrics
// (metrics.go), open to all unless MetricsNeedToken; the live trace, the
// console (package console) and opening a class, for the operator
// (package access); a class's join page
// and socket, for whoever has its code (package classroom).
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", WebHandler(s.cfg.IndexHTML, s.cfg.Assets))
	if s.links != nil {
		mux.HandleFunc("POST /api/saved", s.links.ServeSave)
		mux.HandleFunc("GET /s/{id}", s.links.ServeOpen)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	op := access.Guard{Token: s.cfg.OperatorToken}
	s.e.trace.Peers = s.cfg.HTTPPeers // before any watcher: read only after
	mux.HandleFunc("/login", op.ServeLogin)
	mux.Handle("GET /live", op.Only(http.HandlerFunc(live.ServePage)))
	mux.Handle("GET /live/style.css", live.StyleFrom(s.cfg.IndexHTML))
	mux.Handle("GET /live/ws", op.Only(http.HandlerFunc(s.e.trace.ServeWS)))
	con := op.Only(s.console().Handler())
	mux.Handle("/console", con)
	mux.Handle("/console/", con)
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

// WebHandler serves the browser playground: every page at its path (a
// lesson's step at /LANG/SLUG/N/, the list at /LANG/, embeds under
// /embed/: lessons/play's Paths), the query URLs of before at / (whatever
// the query: the page reads it), and the browser build under /assets/. The
// build holds two wasm bundles (play.Bundle, and play.ClusterBundle for
// the pages that run a multi-broker world), each gzipped, as NAME.wasm.gz,
// which are sent as the files they are, as a static host sends them (the
// page unzips them). assets may be nil or lack the build (`make wasm` was
// not run); the page then says so. Any other path gets the page that
// says there is no such page, with 404.
func WebHandler(index []byte, assets fs.FS) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		servePage(w, r, index, r.URL.RawQuery)
	})
	paths := func(w http.ResponseWriter, r *http.Request) {
		q, ok := link.FromPath(strings.TrimPrefix(r.URL.Path, "/"), r.URL.RawQuery)
		if !ok {
			serveNoPage(w, r, index)
			return
		}
		servePage(w, r, index, q)
	}
	for _, lang := range ui.Languages {
		mux.HandleFunc("GET /"+lang+"/", paths)
	}
	mux.HandleFunc("GET /embed/", paths)
	a := &assetServer{fs: assets}
	mux.HandleFunc("GET /assets/{name}", a.serve)
	mux.HandleFunc("GET /assets/lessons/{name}", serveScript)
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) { serveNoPage(w, r, index) })
	return mux
}

// servePage answers with the page a query shows, prerendered (see
// prerender), with the headers every page has (site.FrameHeaders).
func servePage(w http.ResponseWriter, r *http.Request, index []byte, query string) {
	h := w.Header()
	for k, v := range site.FrameHeaders(play.IsEmbed(query)) {
		h[k] = v
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Accept-Encoding, Accept-Language")
	// A URL without a lang is shown in the browser's (the wasm picks the
	// same from navigator.language).
	page, status := prerender(index, play.WithLang(query, ui.PickLang(r.Header.Get("Accept-Language"))))
	writeText(w, r, status, page)
}

// serveNoPage answers a path that names no page with 404 and a page that
// says so, in the browser's language.
func serveNoPage(w http.ResponseWriter, r *http.Request, index []byte) {
	h := w.Header()
	for k, v := range site.FrameHeaders(false) {
		h[k] = v
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	writeText(w, r, http.StatusNotFound, site.NoPage(index, r.URL.Path, ui.PickLang(r.Header.Get("Accept-Language"))))
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

// maxPrerenderQuery bounds the URLs the server replays itself: a lesson
// link with a few of the learner's steps, not an arbitrary script.
const maxPrerenderQuery = 2048

// prerenderSlots bounds the replays running at once, server-wide.
var prerenderSlots = make(chan struct{}, max(1, runtime.NumCPU()/2))

// prerender is the page a query shows (site.Page) within
// play.ServerBudget. A query too long to replay here gets the plain page,
// which the wasm renders on its own (handing over to the cluster bundle
// itself if the page needs it). At most prerenderSlots queries replay at
// once; a query that finds them all taken gets the plain page too, so a
// flood of URLs costs the server a bounded share of its CPU.
func prerender(index []byte, query string) ([]byte, int) {
	if len(query) > maxPrerenderQuery {
		return index, http.StatusOK
	}
	select {
	case prerenderSlots <- struct{}{}:
		defer func() { <-prerenderSlots }()
	default:
		return index, http.StatusOK
	}
	return site.Page(index, query, play.ServerBudget)
}

type assetServer struct {
	fs   fs.FS
	mu   sync.Mutex
	tags map[string]string // file -> ETag
}

func (a *assetServer) serve(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, err := fs.ReadFile(a.fs, name)
	if a.fs == nil || err != nil {
		http.Error(w, name+" is not built: run `make wasm`", http.StatusNotFound)
		return
	}
	h := w.Header()
	ctype := mime.TypeByExtension(path.Ext(name))
	if path.Ext(name) == ".gz" {
		ctype = "application/gzip" // as a static host sends it: the page unzips it
	}
	h.Set("Content-Type", ctype)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache") // revalidate: cheap with the ETag
	h.Set("ETag", a.etag(name, data))
	if match := r.Header.Get("If-None-Match"); match != "" && match == h.Get("ETag") {
		w.WriteHeader(http.StatusNotModified)
		return
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
