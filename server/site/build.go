package site

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/lessons/play"
)

// The static site (Build), laid out by the paths every home answers
// (lessons/link's Paths), each page a directory with an index.html so that
// a plain file server, GitHub Pages and Cloudflare's assets all find it:
//
//	index.html                    the lesson list (the wasm shows it in the browser's language)
//	LANG/index.html               the lesson list in LANG
//	LANG/SLUG/index.html          a lesson's first step
//	LANG/SLUG/N/index.html        its step N
//	LANG/playground/index.html    the playground
//	embed/LANG/SLUG/[N/]index.html  the embeds
//	404.html                      nothing prerendered: the wasm renders whatever the path names
//	assets/                       both bundles (gzipped), wasm_exec.js, gregor.css, lessons/SLUG.txt, lessons/index.json
//	_headers                      Cloudflare's headers for its asset handling: only embeds may be framed
//	.nojekyll                     GitHub Pages: serve every file as it is

// Options are what a site is built from.
type Options struct {
	Index  []byte // index.html
	Assets fs.FS  // the browser build: NAME.wasm.gz for both bundles, wasm_exec.js
	// Root is the path the site is served under: "/" (a host of its
	// own, the Worker) or "/REPO/" (a project's GitHub Pages).
	Root string
}

// Report says what Build wrote.
type Report struct {
	Files, Pages int
	Bytes        int64
	Largest      string // the largest file, relative to the site
	LargestBytes int64
}

// Limits are Cloudflare's static-asset limits on the Workers Free plan,
// which Build refuses to exceed.
const (
	MaxFiles     = 20_000
	MaxFileBytes = 25 << 20
)

// stylesheet is where the pages' shared style goes: one file instead of
// 40 KB in each of a thousand pages.
const stylesheet = "assets/gregor.css"

// Build writes the whole playground into dir (emptied first) and reports
// what it wrote.
func Build(dir string, o Options) (Report, error) {
	if o.Root == "" {
		o.Root = "/"
	}
	if !strings.HasPrefix(o.Root, "/") || !strings.HasSuffix(o.Root, "/") {
		return Report{}, fmt.Errorf("site: the root %q must start and end with /", o.Root)
	}
	if !bytes.Contains(o.Index, []byte(LoadingMark)) || !bytes.Contains(o.Index, []byte(baseMark)) {
		return Report{}, errors.New("site: index.html lacks its loading mark or <base href>")
	}
	if err := os.RemoveAll(dir); err != nil {
		return Report{}, err
	}
	w := &writer{dir: dir}
	shell, css := splitStyle(WithRoot(o.Index, o.Root))
	w.file(stylesheet, css)
	w.file("404.html", shell)
	w.file(".nojekyll", nil)
	w.file("_headers", headersFile(o.Root))
	for _, name := range []string{"wasm_exec.js", play.Bundle + ".gz", play.ClusterBundle + ".gz"} {
		data, err := fs.ReadFile(o.Assets, name)
		if err != nil {
			return Report{}, fmt.Errorf("site: the browser build lacks %s (run make wasm): %w", name, err)
		}
		w.file("assets/"+name, data)
	}
	for _, m := range lessons.Catalog {
		raw, err := lessons.Script(m.Slug)
		if err != nil {
			return Report{}, err
		}
		w.file("assets/lessons/"+m.Slug+".txt", raw)
	}
	index, _ := json.Marshal(lessons.Versions())
	w.file("assets/lessons/index.json", index)

	w.page("index.html", shell, "lang=en")
	type job struct{ slug, lang string }
	jobs := make(chan job)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) { // the lessons render side by side
		wg.Go(func() {
			for j := range jobs {
				w.lesson(shell, j.slug, j.lang)
			}
		})
	}
	for _, lang := range link.Languages {
		w.page(lang+"/index.html", shell, "lang="+lang)
		w.page(lang+"/playground/index.html", shell, "playground=1&lang="+lang)
		for _, m := range lessons.Catalog {
			jobs <- job{m.Slug, lang}
		}
	}
	close(jobs)
	wg.Wait()
	if w.err != nil {
		return Report{}, w.err
	}
	w.rep.Pages = w.pages
	if w.rep.Files > MaxFiles {
		return w.rep, fmt.Errorf("site: %d files, over the %d a Cloudflare Free plan serves", w.rep.Files, MaxFiles)
	}
	if w.rep.LargestBytes > MaxFileBytes {
		return w.rep, fmt.Errorf("site: %s is %d bytes, over the %d a Cloudflare Free plan serves", w.rep.Largest, w.rep.LargestBytes, MaxFileBytes)
	}
	return w.rep, nil
}

// writer writes a site's files, keeping the first error and the tally;
// its methods may be called from several goroutines.
type writer struct {
	dir   string
	mu    sync.Mutex
	rep   Report
	pages int
	err   error
}

func (w *writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *writer) file(name string, data []byte) {
	p := filepath.Join(w.dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.fail(err)
		return
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		w.fail(err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.rep.Files++
	w.rep.Bytes += int64(len(data))
	if int64(len(data)) > w.rep.LargestBytes {
		w.rep.Largest, w.rep.LargestBytes = name, int64(len(data))
	}
}

// page writes the page a query shows (Page, with no budget: every lesson
// is ours).
func (w *writer) page(name string, shell []byte, query string) {
	page, _ := Page(shell, query, play.Budget{})
	w.file(name, page)
	w.mu.Lock()
	w.pages++
	w.mu.Unlock()
}

// lesson writes every step of a lesson in lang, and its embeds, from one
// replay (a Timeline kept across the steps: the same pages as one replay
// each, play.Session.PageOn).
func (w *writer) lesson(shell []byte, slug, lang string) {
	t := new(play.Timeline)
	for _, embed := range []bool{false, true} {
		s := play.Parse("lesson=" + slug + "&lang=" + lang)
		s.Embed = embed
		for pos := 1; pos <= len(s.Items); pos++ {
			s.Pos = pos
			comp, title := play.LessonView(s.PageOn(t))
			var body bytes.Buffer
			if err := comp.Render(context.Background(), &body); err != nil {
				w.fail(fmt.Errorf("site: %s at step %d: %w", slug, pos, err))
				return
			}
			name := s.Href(pos)
			w.file(path.Join(name, "index.html"), assemble(shell, s.Query(pos), body.Bytes(), title))
			w.mu.Lock()
			w.pages++
			w.mu.Unlock()
		}
	}
}

// splitStyle moves a page's <style> into the site's stylesheet, linked.
func splitStyle(page []byte) (shell, css []byte) {
	start := bytes.Index(page, []byte("<style>"))
	end := bytes.Index(page, []byte("</style>"))
	if start < 0 || end < start {
		return page, nil
	}
	css = bytes.TrimSpace(page[start+len("<style>") : end])
	var out bytes.Buffer
	out.Write(page[:start])
	out.WriteString(`<link rel="stylesheet" href="` + stylesheet + `">`)
	out.Write(page[end+len("</style>"):])
	return out.Bytes(), append(css, '\n')
}

// headersFile is Cloudflare's _headers for the site (its asset handling
// applies it; GitHub Pages ignores it): FrameHeaders on every path, the
// framing ones detached and replaced under embed/.
func headersFile(root string) []byte {
	var b strings.Builder
	write := func(h map[string][]string) {
		keys := make([]string, 0, len(h))
		for k := range h {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", k, h[k][0])
		}
	}
	b.WriteString(root + "*\n")
	write(FrameHeaders(false))
	b.WriteString(root + link.Embed + "/*\n")
	b.WriteString("  ! X-Frame-Options\n  ! Content-Security-Policy\n")
	embed := FrameHeaders(true)
	write(map[string][]string{"Content-Security-Policy": embed["Content-Security-Policy"]})
	return []byte(b.String())
}
