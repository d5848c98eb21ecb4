// Package browsertest drives the playground in Debian's chromium: the real
// wasm build, served by the server's own handler from an httptest server.
// Expectations come from replaying the same URL natively (lessons/play), so
// the tests check that the browser shows what the engine computed, not a
// copy of a lesson's text.
//
// Both bundles, as `make wasm` has just written them to wasm/dist (or built
// here when they are missing or stale), are served twice: by the server's
// handler, which renders the first step into the page and names the bundle
// the page needs, and as a static site would, index.html as it is (the
// wasm then finds its way).
//
// One chromium serves the package; every test opens its tabs in a browser
// context of its own, and the tests run side by side (t.Parallel).
//
// Each test saves a screenshot; the log prints where. Without chromium the
// tests skip, loudly, except under CI=true where they fail.
package browsertest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gregor-kafka/gregor"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/server"
	sitegen "github.com/gregor-kafka/gregor/server/site"
	"github.com/gregor-kafka/gregor/ui"
)

var (
	buildOnce  sync.Once
	site       *httptest.Server // as `gregor serve` serves the page
	staticSite *httptest.Server // the static site (make site), as a plain file server serves it
	siteDir    string           // where the static site was built
	assets     fstest.MapFS     // the browser build, as `make wasm` writes it
	buildErr   error
	siteOnce   sync.Once
	siteErr    error
)

// bundles are the browser builds, with the build tags and the gzipped size
// budget each is held to (play.Budgets; the root package's test holds the
// files `make wasm` wrote to it).
var bundles = []struct {
	name, tags string
	budget     int
}{
	{play.Bundle, "noquorum", play.Budgets[play.Bundle]},
	{play.ClusterBundle, "", play.Budgets[play.ClusterBundle]},
}

// serve serves the browser build as `gregor serve` does, or, with static,
// the static site (make site) as a plain file server does: no headers of
// its own, index.html for a directory, nothing for a path it lacks. The build is the one `make wasm` has just
// written to wasm/dist (`make test` runs it first); where that is missing
// or older than the sources, the test builds it once itself.
func serve(t *testing.T, static bool) string {
	t.Helper()
	buildOnce.Do(func() {
		if assets, buildErr = distOrBuild(); buildErr == nil {
			site = httptest.NewServer(server.WebHandler(gregor.IndexHTML, assets))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	if !static {
		return site.URL
	}
	siteOnce.Do(func() {
		if siteDir, siteErr = os.MkdirTemp("", "gregor-site-"); siteErr != nil {
			return
		}
		rep, err := sitegen.Build(siteDir, sitegen.Options{Index: gregor.IndexHTML, Assets: assets})
		if err != nil {
			siteErr = err
			return
		}
		fmt.Printf("browsertest: the static site is %d files, %.1f MB\n", rep.Files, float64(rep.Bytes)/1e6)
		staticSite = httptest.NewServer(http.FileServer(http.Dir(siteDir)))
	})
	if siteErr != nil {
		t.Fatal(siteErr)
	}
	return staticSite.URL
}

// distDir is where `make wasm` writes the browser build, from this
// package's directory.
const distDir = "../dist"

// distOrBuild is the build in wasm/dist when every bundle is there and
// newer than every source file that goes into it, or else a fresh one.
func distOrBuild() (fstest.MapFS, error) {
	stale, err := distStale()
	if err != nil {
		return nil, err
	}
	if stale != "" {
		fmt.Printf("browsertest: %s: building the bundles here (make wasm would keep them)\n", stale)
		return build()
	}
	out := fstest.MapFS{}
	for _, name := range []string{"wasm_exec.js", play.Bundle + ".gz", play.ClusterBundle + ".gz"} {
		data, err := os.ReadFile(filepath.Join(distDir, name))
		if err != nil {
			return nil, err
		}
		out[name] = &fstest.MapFile{Data: data}
	}
	fmt.Printf("browsertest: serving the bundles make wasm wrote to wasm/dist\n")
	return out, nil
}

// distStale says why wasm/dist cannot be used ("" if it can): a file is
// missing, or a source file of the bundles (Go or templ, outside tests) is
// newer than the oldest of them.
func distStale() (string, error) {
	var built time.Time
	for _, name := range []string{"wasm_exec.js", play.Bundle + ".gz", play.ClusterBundle + ".gz"} {
		fi, err := os.Stat(filepath.Join(distDir, name))
		if err != nil {
			return "wasm/dist/" + name + " is missing", nil
		}
		if built.IsZero() || fi.ModTime().Before(built) {
			built = fi.ModTime()
		}
	}
	root := filepath.Join(distDir, "..", "..")
	newer := ""
	for _, dir := range []string{"core", "lessons", "ui", "wasm", "go.mod", "go.sum"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || newer != "" {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				// The Worker, its npm packages and test fixtures are no
				// part of the bundles.
				if name == "node_modules" || name == "testdata" || path == filepath.Join(root, "wasm", "worker") {
					return fs.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(name, "_test.go") || !(strings.HasSuffix(name, ".go") || strings.HasSuffix(name, ".templ") || name == "go.mod" || name == "go.sum") {
				return nil
			}
			if fi, err := d.Info(); err == nil && fi.ModTime().After(built) {
				newer = path
			}
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	if newer != "" {
		rel, _ := filepath.Rel(root, newer)
		return rel + " is newer than wasm/dist", nil
	}
	return "", nil
}

// build compiles both bundles and gzips them (gzip -9, as make wasm does),
// with Go's loader beside.
func build() (fstest.MapFS, error) {
	dir, err := os.MkdirTemp("", "gregor-wasm-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	goBin, err := exec.LookPath("go")
	if err != nil {
		return nil, err
	}
	root, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		return nil, err
	}
	loader, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(root)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return nil, err
	}
	assets := fstest.MapFS{"wasm_exec.js": {Data: loader}}
	// templ without net/http, as make wasm builds it (wasm/slimtempl).
	slim := exec.Command(goBin, "run", "github.com/gregor-kafka/gregor/wasm/slimtempl", dir)
	if out, err := slim.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("slimtempl: %v\n%s", err, out)
	}
	for _, b := range bundles {
		wasmPath := filepath.Join(dir, b.name)
		cmd := exec.Command(goBin, "build", "-trimpath", "-tags", b.tags, "-gcflags=all=-l", "-ldflags=-s -w", "-o", wasmPath, "github.com/gregor-kafka/gregor/wasm")
		cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "GOWORK="+filepath.Join(dir, "go.work"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building %s: %v\n%s", b.name, err, out)
		}
		raw, err := os.ReadFile(wasmPath)
		if err != nil {
			return nil, err
		}
		gz := gzip9(raw)
		fmt.Printf("browsertest: %s is %d bytes, %d with gzip -9 (budget %.1f MB)\n", b.name, len(raw), gz.Len(), float64(b.budget)/1e6)
		assets[b.name+".gz"] = &fstest.MapFile{Data: gz.Bytes()}
	}
	return assets, nil
}

// gzip9 is data compressed with gzip -9.
func gzip9(data []byte) *bytes.Buffer {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(data)
	zw.Close()
	return &gz
}

// slots bounds the tests that drive the browser at once. The tests run
// side by side (t.Parallel), but each page is work for the one chromium
// and the machine's two cores: past two at once they only slow each other
// down (on 2 cores the package took 310 s one at a time and 372 s four at
// a time). GREGOR_BROWSER_SLOTS overrides it.
var slots = make(chan struct{}, browserSlots())

func browserSlots() int {
	if n, err := strconv.Atoi(os.Getenv("GREGOR_BROWSER_SLOTS")); err == nil && n > 0 {
		return n
	}
	return 2
}

var holding sync.Map // *testing.T -> holds a slot

// slot waits for a slot for t, held until t ends.
func slot(t *testing.T) {
	if _, held := holding.LoadOrStore(t, true); held {
		return
	}
	slots <- struct{}{}
	t.Cleanup(func() {
		<-slots
		holding.Delete(t)
	})
}

func chromium(t *testing.T) string {
	t.Helper()
	slot(t)
	for _, name := range []string{os.Getenv("CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed (apt-get install chromium); CI=true, so this fails instead of skipping")
	}
	t.Skip("SKIPPING BROWSER TESTS: chromium is not installed (apt-get install chromium)")
	return ""
}

// page is one browser with one tab on the test site.
type page struct {
	t    *testing.T
	ctx  context.Context
	base string
}

// open loads a page from the server; openStatic from the static site.
func open(t *testing.T, path string) *page {
	t.Helper()
	return openOn(t, false, path)
}

func openStatic(t *testing.T, path string) *page {
	t.Helper()
	return openOn(t, true, path)
}

func openOn(t *testing.T, static bool, path string) *page {
	t.Helper()
	return openAt(t, serve(t, static), path)
}

// openAt loads path from the home at base (the native server, the static
// site, the Worker) in a fresh browser context.
func openAt(t *testing.T, base, path string) *page {
	t.Helper()
	return tab(t, browser(t, chromium(t)), base, path)
}

// waitTimeout bounds each wait on a page (an action, a query, a poll for
// what it shows), sized for a loaded machine; the page itself lives as
// long as its test.
const waitTimeout = 60 * time.Second

// tab opens path in a new tab of the browser and waits for the wasm's
// first render.
func tab(t *testing.T, parent context.Context, base, path string) *page {
	t.Helper()
	p := blankTab(t, parent, base)
	p.load(path)
	return p
}

// blankTab is a new tab of the browser on nothing yet, in a browser
// context of its own. The tab and its context close when the test ends.
func blankTab(t *testing.T, parent context.Context, base string) *page {
	t.Helper()
	ctx, cancelTab := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancelTab)
	// The tab is made by the first run on its own context: one made under
	// a wait's deadline would close when that wait ends.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return &page{t: t, ctx: ctx, base: base}
}

// The package's one chromium, started by the first test that needs it and
// stopped by TestMain; every test opens its tabs in browser contexts of
// its own (tab), as fresh as a new browser: no cookies, storage or cache
// from another test.
var chrome struct {
	once    sync.Once
	ctx     context.Context // the browser's first tab, kept open
	err     error
	profile string
	stop    func()
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopWorker()
	if chrome.stop != nil {
		chrome.stop()
	}
	if siteDir != "" {
		os.RemoveAll(siteDir)
	}
	os.Exit(code)
}

// browser is the package's headless chromium (started on first use), to
// open tabs in with tab.
func browser(t *testing.T, exe string) context.Context {
	t.Helper()
	chrome.once.Do(func() {
		if chrome.profile, chrome.err = os.MkdirTemp("", "gregor-chromium-"); chrome.err != nil {
			return
		}
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
			chromedp.ExecPath(exe),
			chromedp.Headless,
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.NoFirstRun,
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			// Tabs of parallel tests share the window: none of them may
			// be throttled for being in the background.
			chromedp.Flag("disable-background-timer-throttling", true),
			chromedp.Flag("disable-renderer-backgrounding", true),
			chromedp.Flag("disable-backgrounding-occluded-windows", true),
			chromedp.UserDataDir(chrome.profile),
			chromedp.WindowSize(1440, 1000),
		)
		ctx, cancel := chromedp.NewContext(actx)
		chrome.ctx = ctx
		chrome.stop = func() {
			cancel()
			cancelAlloc()
			os.RemoveAll(chrome.profile)
		}
		chrome.err = chromedp.Do(ctx) // starts the browser
	})
	if chrome.err != nil {
		t.Fatalf("starting chromium: %v", chrome.err)
	}
	return chrome.ctx
}

// load navigates and waits for the wasm's first render.
func (p *page) load(path string) {
	p.t.Helper()
	p.do(chromedp.Navigate(p.base + path))
	p.do(chromedp.WaitVisible(chromedp.CSS("html[data-ready] #app > *")))
}

// route moves the page to path in place, as the back button or an in-app
// link does (the wasm's popstate handler: no page load, no new download),
// and waits for the wasm's render of it. A page the running bundle cannot
// run is handed over to the cluster bundle in place, so a test that routes
// through one-broker pages first and cluster pages after runs each on the
// bundle a learner's browser would.
func (p *page) route(path string) {
	p.t.Helper()
	p.eval(fmt.Sprintf(`document.querySelectorAll("#app > *").forEach(e => e.dataset.old = "1"), history.pushState(null, "", %q), dispatchEvent(new PopStateEvent("popstate")), ""`, path))
	p.do(chromedp.WaitVisible(chromedp.CSS("html[data-ready] #app > :not([data-old])")))
}

// lessonsByBundle lists the catalog's lessons, those gregor.wasm runs
// first and those that need the cluster bundle after (see route).
func lessonsByBundle() []string {
	var one, cluster []string
	for _, m := range lessons.Catalog {
		if play.NeedsQuorum("lesson=" + m.Slug) {
			cluster = append(cluster, m.Slug)
		} else {
			one = append(one, m.Slug)
		}
	}
	return append(one, cluster...)
}

// bounded is the page's context for one wait of at most waitTimeout.
func (p *page) bounded() (context.Context, context.CancelFunc) {
	return context.WithTimeout(p.ctx, waitTimeout)
}

// do runs actions; when they fail (or time out) the test fails with what
// the page showed then, and a screenshot.
func (p *page) do(actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := p.bounded()
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.shot("failed")
		p.t.Fatalf("browser: %v (%s)", err, p.seen())
	}
}

// seen says where the page is and what it shows, for a failure message.
func (p *page) seen() string {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + ", ready=" + (document.documentElement.dataset.ready || "no") + ", bundle=" + (window.gregorBundle || "none") + ", shows: " + (document.getElementById("app")?.innerText || "").replace(/\s+/g, " ").slice(0, 200)`))
	if err != nil {
		return "the page does not answer: " + err.Error()
	}
	return "the page at " + v
}

func (p *page) eval(js string) string {
	p.t.Helper()
	ctx, cancel := p.bounded()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil {
		p.t.Fatalf("evaluate %s: %v", js, err)
	}
	return v
}

func (p *page) count(sel string) int {
	p.t.Helper()
	ctx, cancel := p.bounded()
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
	if err != nil {
		p.t.Fatalf("count %s: %v", sel, err)
	}
	return v
}

// text is the trimmed text of the first match, "" if none.
func (p *page) text(sel string) string {
	p.t.Helper()
	return strings.Join(strings.Fields(p.eval(fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||""`, sel))), " ")
}

// waitText waits until the first match's text contains want.
func (p *page) waitText(sel, want string) {
	p.t.Helper()
	js := fmt.Sprintf(`((document.querySelector(%q)||{}).textContent||"").replace(/\s+/g," ").includes(%q)`, sel, want)
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(waitTimeout))); err != nil {
		p.shot("failed")
		p.t.Fatalf("waiting for %q in %s (it reads %q): %v", want, sel, p.text(sel), err)
	}
}

// poll waits until js is true, failing with what as what was awaited.
func (p *page) poll(js, what string) {
	p.t.Helper()
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(waitTimeout))); err != nil {
		p.shot("failed")
		p.t.Fatalf("waiting for %s: %v (%s)", what, err, p.seen())
	}
}

// click clicks the first match, scrolled to the middle of the window
// first: at the top edge the sticky step nav covers it and would take
// the click. It clicks once the match has stood still for a frame: parts
// of the page above it are laid out only when they come on screen
// (content-visibility), so after the scroll it can move for a frame or
// two, and a click aimed before that lands where it was. Even so, under
// make test's load a click on TestClusterLesson's What-if button has
// twice done nothing, so a spy on the document (clickSpy) reports what
// each click hit: one that hit something else is logged, with what it
// hit, and clicked again, up to three times.
func (p *page) click(sel string) {
	p.t.Helper()
	for try := 1; ; try++ {
		p.eval(fmt.Sprintf(`(document.querySelector(%q) || document.body).scrollIntoView({block: "center"}), window.gregorClickAt = "", ""`, sel))
		p.poll(fmt.Sprintf(`(() => {
			const el = document.querySelector(%q);
			if (!el) return false;
			const r = el.getBoundingClientRect(), at = r.left + "," + r.top;
			const still = at === window.gregorClickAt;
			window.gregorClickAt = at;
			return still;
		})()`, sel), sel+" standing still after its scroll")
		p.eval(fmt.Sprintf(clickSpy+`, window.gregorClickWant = %q, window.gregorClickHit = "", ""`, sel))
		p.do(chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
		// A click that loaded a new document leaves no gregorClickHit:
		// it hit something that navigates, which counts as its target.
		p.poll(`window.gregorClickHit !== ""`, "the click on "+sel+" to reach the page")
		hit := p.eval(`String(window.gregorClickHit ?? "target")`)
		if hit == "target" {
			return
		}
		if try == 3 {
			p.shot("failed")
			p.t.Fatalf("three clicks on %s each hit something else, the last %s", sel, hit)
		}
		p.t.Logf("a click on %s hit %s; clicking again", sel, hit)
	}
}

// clickSpy installs, once per document, a capturing click listener that
// sets gregorClickHit to "target" when a click lands in the element
// gregorClickWant selects, and otherwise to where it landed and what it
// hit. It answers one click per arming; the page's own handlers still run.
const clickSpy = `window.gregorClickSpy || (window.gregorClickSpy = true, document.addEventListener("click", e => {
	const want = window.gregorClickWant;
	if (!want) return;
	window.gregorClickWant = "";
	const t = e.target instanceof Element ? e.target : document.body;
	window.gregorClickHit = t.closest(want) ? "target" :
		"(" + e.clientX + "," + e.clientY + "): " + t.outerHTML.slice(0, 160);
}, true))`

// search is the session the page's URL names, as a query: lessons/play's
// FromPath of its path (relative to the site's root) and its query. Tests
// read a URL for this, whichever form the address bar shows.
func (p *page) search() string {
	p.t.Helper()
	p.poll(`!window.gregorURLPending`, "the address bar written (wasm/address.go)")
	path, raw, _ := strings.Cut(p.eval(`location.pathname.slice(new URL(document.baseURI).pathname.length) + "\n" + location.search.slice(1)`), "\n")
	q, ok := link.FromPath(path, raw)
	if !ok {
		p.t.Fatalf("the page's path %q names no page", path)
	}
	return "?" + q
}

// href is the page's address, once the address bar is written.
func (p *page) href() string {
	p.t.Helper()
	p.poll(`!window.gregorURLPending`, "the address bar written (wasm/address.go)")
	return p.eval(`location.href`)
}

// native replays the page's current URL in Go: what the browser must show.
func (p *page) native() (*play.Session, int) {
	p.t.Helper()
	s := play.Parse(strings.TrimPrefix(p.search(), "?"))
	return s, s.Pos
}

// shot saves a screenshot of the whole page under $GREGOR_ARTIFACTS
// (default: $TMPDIR/gregor-browser-tests) and logs its path; shotView
// saves only what the window shows (the diagram, on a lesson page), which
// takes a fraction of the time on a tall page.
func (p *page) shot(name string)     { p.save(name, chromedp.FullScreenshot(100)) }
func (p *page) shotView(name string) { p.save(name, chromedp.CaptureScreenshot()) }

// allRendered runs fn with every part of the page laid out, also those
// the page leaves to be rendered when they scroll into view
// (content-visibility in index.html), so that a whole-page screenshot or
// a check of the page's width sees what a learner who scrolls through it
// sees; then the page renders as before. Best effort: a page that cannot
// run it (it failed) is captured as it is.
func (p *page) allRendered(fn func()) {
	const on = `document.head.insertAdjacentHTML("beforeend", "<style id=render-all>* { content-visibility: visible !important; }</style>"), ""`
	const off = `document.getElementById("render-all")?.remove(), ""`
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	chromedp.Run(ctx, chromedp.Evaluate[string](on))
	defer chromedp.Run(ctx, chromedp.Evaluate[string](off))
	fn()
}

func (p *page) save(name string, capture chromedp.Action[[]byte]) {
	dir := os.Getenv("GREGOR_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "gregor-browser-tests")
	}
	os.MkdirAll(dir, 0o755)
	ctx, cancel := p.bounded()
	defer cancel()
	var png []byte
	var err error
	p.allRendered(func() { png, err = chromedp.Run(ctx, capture) })
	if err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(dir, strings.ReplaceAll(p.t.Name(), "/", "-")+"-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Logf("screenshot: %v", err)
		return
	}
	p.t.Logf("screenshot: %s", path)
}

// measure logs how long the page took to show its first step and to
// become interactive, and where the time went.
func (p *page) measure() {
	p.t.Helper()
	paint, first := p.paintTimes()
	bundle := p.eval(`window.gregorBundle`)
	p.t.Logf("MEASURE time from navigation start to the first rendered step: %.0f ms, server-rendered (first contentful paint; budget 1000 ms)", paint)
	p.t.Logf("MEASURE time from navigation start to the wasm's own first render (interactive, %s): %.0f ms", bundle, first)
	p.t.Logf("MEASURE breakdown: %s", p.eval(`(() => { const n = performance.getEntriesByType("resource").find(e => e.name.endsWith("/" + window.gregorBundle + ".gz")); const j = performance.getEntriesByType("resource").find(e => e.name.endsWith("wasm_exec.js")); return "index.html loaded, wasm_exec.js fetched " + Math.round(j.startTime) + ".." + Math.round(j.responseEnd) + " ms, " + window.gregorBundle + " requested at " + Math.round(n.startTime) + " ms, fetched and compiled by " + Math.round(n.responseEnd) + " ms, instantiated by " + Math.round(window.gregorInstantiated) + " ms, Go main() at " + Math.round(window.gregorMainStart) + " ms, replayed at " + Math.round(window.gregorReplayed) + " ms, templ rendered at " + Math.round(window.gregorTemplated) + " ms, in the DOM at " + Math.round(window.gregorFirstRender) + " ms"; })()`))
}

// paintTimes are the milliseconds from navigation start to the first
// contentful paint (the prerendered step; -1 if none) and to the wasm's
// own first render (interactive) of a page that has loaded.
func (p *page) paintTimes() (paint, interactive float64) {
	p.t.Helper()
	times, err := chromedp.Run(p.ctx, chromedp.Evaluate[[]float64](`[(performance.getEntriesByType("paint").find(e => e.name == "first-contentful-paint") || {startTime: -1}).startTime, window.gregorFirstRender]`))
	if err != nil || len(times) != 2 {
		p.t.Fatalf("reading the paint times: %v %v", times, err)
	}
	return times[0], times[1]
}

// fetched lists the wasm bundles the page has fetched, in order.
func (p *page) fetched() string {
	p.t.Helper()
	return p.eval(`performance.getEntriesByType("resource").map(e => e.name.split("/").pop()).filter(n => n.endsWith(".wasm.gz")).map(n => n.slice(0, -3)).join(" ")`)
}

// checkStep compares the rendered step with the native replay of the URL.
func (p *page) checkStep() {
	p.t.Helper()
	s, pos := p.native()
	want := s.Page()
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", pos, want.Total))
	// Everything the step must show, read in one round trip.
	var q query
	q.text(".step pre.command")
	q.text(".step .narration")
	q.count(".exchanges tbody tr")
	q.count(".exchanges .bg-group")
	q.count(".steplist li.diverged")
	for _, b := range want.State.Brokers {
		q.text(fmt.Sprintf(`[data-broker=%q] h3 .badge`, b.Name))
		shown, _ := ui.ShownPartitions(b.Partitions)
		for _, pt := range shown {
			sel := fmt.Sprintf(`[data-broker=%q] section[data-partition=%q]`, b.Name, pt.Name)
			for _, key := range []string{"start", "leo", "hw", "lso"} {
				q.text(sel + " ." + key + " dd")
			}
			q.count(sel + " .seg")
		}
		q.count(fmt.Sprintf(`[data-broker=%q] .files tr`, b.Name))
	}
	got := p.read(q)
	if g := got.texts[".step pre.command"]; !strings.Contains(g, want.Step.Command) {
		p.t.Errorf("step %d command: got %q, want %q", pos, g, want.Step.Command)
	}
	if len(want.Step.Narration) > 0 {
		if g := got.texts[".step .narration"]; g != want.Step.Narration[0] {
			p.t.Errorf("step %d narration: got %q, want %q", pos, g, want.Step.Narration[0])
		}
	}
	shown, folded := ui.Fold(want.Step.Exchanges)
	if g := got.counts[".exchanges tbody tr"]; g != len(shown) {
		p.t.Errorf("step %d: %d exchanges rendered as cards, want %d", pos, g, len(shown))
	}
	if g := got.counts[".exchanges .bg-group"]; g != len(folded) {
		p.t.Errorf("step %d: %d kinds of background traffic folded, want %d", pos, g, len(folded))
	}
	for _, b := range want.State.Brokers {
		status := map[bool]string{true: "up", false: "down"}[b.Up]
		if g := got.texts[fmt.Sprintf(`[data-broker=%q] h3 .badge`, b.Name)]; g != status {
			p.t.Errorf("step %d: broker %s shows %q, want %q", pos, b.Name, g, status)
		}
		shown, _ := ui.ShownPartitions(b.Partitions)
		for _, pt := range shown {
			sel := fmt.Sprintf(`[data-broker=%q] section[data-partition=%q]`, b.Name, pt.Name)
			for key, v := range map[string]int64{"start": pt.Start, "leo": pt.LEO, "hw": pt.HW, "lso": pt.LSO} {
				if g := got.texts[sel+" ."+key+" dd"]; g != fmt.Sprint(v) {
					p.t.Errorf("step %d: %s %s shows %q, want %d", pos, pt.Name, key, g, v)
				}
			}
			if g := got.counts[sel+" .seg"]; g != len(pt.Segments) {
				p.t.Errorf("step %d: %s shows %d segments, want %d", pos, pt.Name, g, len(pt.Segments))
			}
		}
		files, _ := ui.ShownFiles(b.Files)
		if g := got.counts[fmt.Sprintf(`[data-broker=%q] .files tr`, b.Name)]; g != len(files) {
			p.t.Errorf("step %d: broker %s shows %d files, want %d", pos, b.Name, g, len(files))
		}
	}
	if g, w := got.counts[".steplist li.diverged"], countDiverged(want.Steps); g != w {
		p.t.Errorf("step %d: %d steps marked as diverged, want %d", pos, g, w)
	}
}

// query is what a check reads of a page, asked in one round trip (read):
// the trimmed text of each selector's first match, and how many each
// matches.
type query struct{ texts, counts []string }

func (q *query) text(sel string)  { q.texts = append(q.texts, sel) }
func (q *query) count(sel string) { q.counts = append(q.counts, sel) }

// shown is what read found, by selector.
type shown struct {
	texts  map[string]string
	counts map[string]int
}

// read asks the page everything q names at once.
func (p *page) read(q query) shown {
	p.t.Helper()
	ts, _ := json.Marshal(append([]string{}, q.texts...)) // [] rather than null
	cs, _ := json.Marshal(append([]string{}, q.counts...))
	raw := p.eval(fmt.Sprintf(`JSON.stringify({texts: Object.fromEntries(%s.map(s => [s, ((document.querySelector(s) || {}).textContent || "").replace(/\s+/g, " ").trim()])), counts: Object.fromEntries(%s.map(s => [s, document.querySelectorAll(s).length]))})`, ts, cs))
	var out struct {
		Texts  map[string]string
		Counts map[string]int
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		p.t.Fatalf("reading the page: %v", err)
	}
	return shown{out.Texts, out.Counts}
}

func countDiverged(steps []ui.StepItem) int {
	n := 0
	for _, s := range steps {
		if s.Diverged {
			n++
		}
	}
	return n
}

// firstCommand is the 1-based step of the lesson's first command with
// this prefix.
func firstCommand(t *testing.T, slug, prefix string) int {
	s := play.Parse("lesson=" + slug)
	for i, it := range s.Items {
		if strings.HasPrefix(it.Cmd, prefix) {
			return i + 1
		}
	}
	t.Fatalf("lesson %s has no %q step", slug, prefix)
	return 0
}

func TestIndex(t *testing.T) {
	t.Parallel()
	p := open(t, "/")
	defer p.shot("lesson")
	items := play.Index("")
	if got := p.count(".lessons li"); got != len(items) {
		t.Errorf("%d lessons listed, want %d", got, len(items))
	}
	p.shot("index")
	// The page speaks the browser's language (English here), and its
	// links say so.
	p.click(`.lessons a[href="en/segments/"]`)
	p.waitText("#pos", "Step 1 of")
	if got := p.search(); got != "?lesson=segments&lang=en" {
		t.Errorf("following the link: location.search = %q", got)
	}
}

func TestLessonAtStep(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=segments&step=3")
	defer p.shot("step3")
	p.measure()
	if got := p.fetched(); got != play.Bundle {
		t.Errorf("wasm fetched: %q, want only %s", got, play.Bundle)
	}
	p.checkStep()
	// The step's exchange, rendered from the kmsg messages.
	n := firstCommand(t, "segments", "produce ")
	p.route(fmt.Sprintf("/?lesson=segments&step=%d", n))
	p.checkStep()
	if got := p.text(".exchanges td.msg.req .api"); got != "Produce" {
		t.Errorf("produce step: request API %q", got)
	}
	resp := p.text(".exchanges td.msg.resp")
	for _, want := range []string{"Produce", "base_offset", "error_code NONE"} {
		if !strings.Contains(resp, want) {
			t.Errorf("produce step: response %q lacks %q", resp, want)
		}
	}
	if !strings.Contains(p.text(".exchanges td.msg.req"), "acks") {
		t.Errorf("produce request %q lacks acks", p.text(".exchanges td.msg.req"))
	}
	p.shot("produce")
}

func TestStepForwardBack(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=segments&step=3")
	defer p.shot("after")
	p.click("#next")
	p.waitText("#pos", "Step 4 of")
	if got := p.search(); !strings.Contains(got, "step=4") {
		t.Errorf("after Next, location.search = %q", got)
	}
	p.checkStep()
	p.click("#prev")
	p.waitText("#pos", "Step 3 of")
	p.checkStep()
	p.do(chromedp.KeyEvent(kb.ArrowRight))
	p.waitText("#pos", "Step 4 of")
	p.do(chromedp.KeyEvent(kb.ArrowRight))
	p.waitText("#pos", "Step 5 of")
	p.checkStep()
	t.Logf("MEASURE one step (replay from the seed + render) after warm-up: %s ms", p.eval(`String(Math.round(window.gregorLastRenderMs))`))
}

func TestJump(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=segments&step=1")
	defer p.shot("jumped")
	total := p.count(".steplist li")
	target := min(8, total)
	p.eval(fmt.Sprintf(`(() => { const r = document.getElementById("jump"); r.value = "%d"; r.dispatchEvent(new Event("change", {bubbles: true})); return ""; })()`, target))
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", target, total))
	p.checkStep()
	p.click(".steplist li:nth-child(2) a")
	p.waitText("#pos", fmt.Sprintf("Step 2 of %d", total))
	p.checkStep()
	if got := p.text(".steplist li.current .n"); got != "2" {
		t.Errorf("current step in the list: %q", got)
	}
}

func TestInjectCrash(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "segments", "produce ")
	p := open(t, fmt.Sprintf("/?lesson=segments&step=%d", n))
	total := p.count(".steplist li")
	p.click(`button[data-cmd="crash b0"]`)
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", n+1, total+1))
	if got := p.text(".step pre.command"); !strings.Contains(got, "crash b0") {
		t.Errorf("injected step shows %q", got)
	}
	if got := p.text(`[data-broker="b0"] h3 .badge`); got != "down" {
		t.Errorf("after crash, b0 shows %q", got)
	}
	if got, want := p.search(), fmt.Sprintf("actions=%d:crash+b0", n); !strings.Contains(got, want) {
		t.Errorf("location.search = %q, want it to hold %q", got, want)
	}
	if p.count(".steplist li.injected") != 1 {
		t.Errorf("the injected step is not marked in the step list")
	}
	p.checkStep()
	p.shot("crashed")

	// The lesson carries on from the branch: later steps now differ.
	s, _ := p.native()
	page := s.Page()
	diverged := 0
	for _, st := range page.Steps {
		if st.Diverged {
			diverged = st.N
			break
		}
	}
	if diverged == 0 {
		t.Fatal("a crash before the rest of the lesson changed nothing (native replay)")
	}
	p.click(fmt.Sprintf(".steplist li:nth-child(%d) a", diverged))
	p.waitText("#pos", fmt.Sprintf("Step %d of", diverged))
	p.checkStep()
	if p.count(".step .diff .line.add, .step .diff .line.del") == 0 {
		t.Errorf("step %d diverged but shows no difference from the script", diverged)
	}
	p.shot("diverged")

	// The URL replays exactly this.
	href := p.href()
	p.load(strings.TrimPrefix(href, p.base))
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", diverged, total+1))
	p.checkStep()

	// Restart it, at the step after the crash.
	p.click(fmt.Sprintf(".steplist li:nth-child(%d) a", n+1))
	p.click(`button[data-cmd="restart b0"]`)
	p.waitText(`[data-broker="b0"] h3 .badge`, "up")
	p.checkStep()
	// And remove both of the learner's steps again.
	p.click(".steplist li.injected .remove")
	p.click(".steplist li.injected .remove")
	if got := p.search(); strings.Contains(got, "actions=") {
		t.Errorf("after removing the learner's steps, location.search = %q", got)
	}
	if got := p.count(".steplist li.diverged"); got != 0 {
		t.Errorf("%d steps still diverge after removing the learner's steps", got)
	}
}

func TestDropResponse(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "segments", "produce ")
	p := open(t, fmt.Sprintf("/?lesson=segments&step=%d", n-1))
	defer p.shot("dropped")
	p.click(`button[data-cmd="fault drop response"]`)
	p.waitText(".step pre.command", "fault drop response")
	p.click("#next")
	p.waitText(".step pre.command", "produce")
	p.checkStep()
	if got := p.count(".exchanges td.msg.resp.dropped"); got != 1 {
		t.Errorf("%d dropped responses rendered, want 1", got)
	}
	if got := p.text(".exchanges td.msg.resp.dropped mark"); got != "dropped" {
		t.Errorf("the dropped response is marked %q", got)
	}
	if got := p.search(); !strings.Contains(got, fmt.Sprintf("actions=%d:fault+drop+response", n-1)) {
		t.Errorf("location.search = %q", got)
	}
}

func TestPastTheEnd(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=segments&step=999")
	defer p.shot("end")
	s := play.Parse("lesson=segments")
	total := len(s.Items)
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", total, total))
	if !strings.Contains(p.text(".step .note"), "past the end") {
		t.Errorf("no past-the-end note: %q", p.text(".step .note"))
	}
	if p.count("details.transcript[open]") != 1 {
		t.Errorf("the transcript is not open")
	}
	if got := p.count("details.transcript > section"); got != total {
		t.Errorf("transcript has %d steps, want %d", got, total)
	}
	if p.count("#next") != 0 {
		t.Errorf("a Next link at the last step")
	}
}

func TestPlayground(t *testing.T) {
	t.Parallel()
	p := open(t, "/?playground=1")
	defer p.shot("playground")
	if !strings.Contains(p.text(".welcome"), "An empty world") {
		t.Errorf("playground welcome: %q", p.text(".welcome"))
	}
	cmds := []string{"broker log.segment.bytes=300", "topic orders partitions=2", "producer p1 acks=1", "produce p1 orders partition=1 value=hello count=2"}
	for i, c := range cmds {
		p.do(chromedp.SendKeys(chromedp.ID("cmd"), c+"\r"))
		p.waitText("#pos", fmt.Sprintf("Step %d of %d", i+1, i+1))
	}
	p.checkStep()
	if got := p.text(".exchanges td.msg.req .api"); got != "Produce" {
		t.Errorf("playground produce: request API %q", got)
	}
	if got := p.text(`[data-partition="orders-1"] .leo dd`); got != "2" {
		t.Errorf("orders-1 LEO %q, want 2", got)
	}
	q, _ := url.QueryUnescape(p.search())
	if !strings.Contains(q, "cmds=broker log.segment.bytes=300,topic orders partitions=2") {
		t.Errorf("location.search = %q", p.search())
	}
	// An unknown command says what exists, and stays out of the timeline.
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "frobnicate\r"))
	p.waitText(".rejected", "unknown command")
	if strings.Contains(p.search(), "frobnicate") {
		t.Errorf("a rejected command entered the URL: %s", p.search())
	}
	// Faults from the buttons, and the URL replays it all.
	p.click(`button[data-cmd="crash b0"]`)
	p.waitText(`[data-broker="b0"] h3 .badge`, "down")
	href := p.href()
	p.load(strings.TrimPrefix(href, p.base))
	p.waitText("#pos", "Step 5 of 5")
	p.checkStep()
}

// TestClusterLesson: the replication lesson runs three brokers on a raft
// metadata quorum, which only the cluster bundle carries. The server marks
// the page for it, so the browser fetches that bundle alone, and the lesson
// is as interactive as any other: crashing the leader at a step makes the
// later steps differ from the script, and the URL replays it.
func TestClusterLesson(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "replication", "produce ")
	p := open(t, fmt.Sprintf("/?lesson=replication&step=%d", n))
	defer p.shot("replication")
	p.measure()
	if got := p.fetched(); got != play.ClusterBundle {
		t.Errorf("wasm fetched: %q, want only %s", got, play.ClusterBundle)
	}
	p.checkStep()
	s, _ := p.native()
	total := len(s.Items)
	leader := fmt.Sprintf("b%d", s.Page().State.Brokers[0].Partitions[0].Leader)

	// Stepping is the wasm's, not a page load.
	p.eval(`window.samePage = "yes"`)
	p.click("#next")
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", n+1, total))
	p.checkStep()
	t.Logf("MEASURE one step of a three-broker lesson (replay from the seed + render), the first after load: %s ms", p.eval(`String(Math.round(window.gregorLastRenderMs))`))
	p.click("#prev")
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", n, total))
	p.click("#next")
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", n+1, total))
	t.Logf("MEASURE one step of a three-broker lesson, after warm-up: %s ms", p.eval(`String(Math.round(window.gregorLastRenderMs))`))
	p.click("#prev")
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", n, total))

	// What if the leader crashes right after the write?
	p.click(fmt.Sprintf(`button[data-cmd="crash %s"]`, leader))
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", n+1, total+1))
	if got := p.text(fmt.Sprintf(`[data-broker=%q] h3 .badge`, leader)); got != "down" {
		t.Errorf("after the crash, %s shows %q", leader, got)
	}
	if got, want := p.search(), fmt.Sprintf("actions=%d:crash+%s", n, leader); !strings.Contains(got, want) {
		t.Errorf("location.search = %q, want it to hold %q", got, want)
	}
	p.checkStep()
	p.shot("crashed")
	s, _ = p.native()
	diverged := 0
	for _, st := range s.Page().Steps {
		if st.Diverged {
			diverged = st.N
			break
		}
	}
	if diverged == 0 {
		t.Fatalf("crashing %s after step %d changed nothing (native replay)", leader, n)
	}
	p.click(fmt.Sprintf(".steplist li:nth-child(%d) a", diverged))
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", diverged, total+1))
	if s, _ := p.native(); s.Predicting() {
		p.click(`.question [data-answer="-1"]`) // it asks a question first: Show me
		p.waitText(".question", "The answer")
	}
	p.checkStep()
	if p.count(".step .diff .line.add, .step .diff .line.del") == 0 {
		t.Errorf("step %d diverged but shows no difference from the script", diverged)
	}
	if got := p.eval(`window.samePage || ""`); got != "yes" {
		t.Errorf("the page was reloaded while stepping and injecting")
	}
	p.shot("diverged")

	// The URL replays exactly this.
	href := p.href()
	p.load(strings.TrimPrefix(href, p.base))
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", diverged, total+1))
	p.checkStep()
}

// TestClusterStatic: served as a static site would serve it, nothing marks
// the leader-election page for the cluster bundle. gregor.wasm finds that
// it needs a cluster and hands the page over; the lesson then runs.
func TestClusterStatic(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "leader-election", "crash ")
	p := openStatic(t, fmt.Sprintf("/?lesson=leader-election&step=%d", n))
	defer p.shot("leader-election")
	if got, want := p.fetched(), play.Bundle+" "+play.ClusterBundle; got != want {
		t.Errorf("wasm fetched: %q, want %q", got, want)
	}
	t.Logf("MEASURE static site, time from navigation start to the first render by the cluster bundle after the hand-over (interactive): %s ms", p.eval(`String(Math.round(window.gregorFirstRender))`))
	p.checkStep()
	p.click(`button[data-cmd="fault drop response"]`)
	p.waitText(".step pre.command", "fault drop response")
	p.checkStep()
	p.click("#next")
	p.waitText("#pos", fmt.Sprintf("Step %d of", n+2))
	p.checkStep()
}

// TestClusterPlayground: `cluster 3` typed into the playground, which
// gregor.wasm runs, hands the page over to the cluster bundle in place,
// which runs it; more commands go to the three brokers.
func TestClusterPlayground(t *testing.T) {
	t.Parallel()
	p := open(t, "/?playground=1&cmds=advance+1s")
	defer p.shot("playground")
	if got := p.eval(`window.gregorBundle`); got != play.Bundle {
		t.Fatalf("the playground started %s", got)
	}
	p.eval(`window.samePage = "yes"`)
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "cluster 3\r"))
	p.waitText("#pos", "Step 2 of 2")
	if got := p.eval(`window.gregorBundle`); got != play.ClusterBundle {
		t.Errorf("after cluster 3 the page runs %s", got)
	}
	if got := p.eval(`window.samePage || ""`); got != "yes" {
		t.Errorf("the page was reloaded to hand over")
	}
	if got := p.eval(`document.documentElement.dataset.ready || ""`); got != "1" {
		t.Errorf("the page is not marked ready after the hand-over")
	}
	if got := p.count(".switching"); got != 0 {
		t.Errorf("the hand-over note is still shown")
	}
	p.checkStep()
	if got := p.count("[data-broker]"); got != 3 {
		t.Errorf("%d brokers shown, want 3", got)
	}
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "topic orders partitions=1 rf=3\r"))
	p.waitText("#pos", "Step 3 of 3")
	p.checkStep()
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "show replicas orders-0\r"))
	p.waitText(".step .output", "(leader)")
	p.checkStep()
	q, _ := url.QueryUnescape(p.search())
	if !strings.Contains(q, "cmds=advance 1s,cluster 3,topic orders partitions=1 rf=3,show replicas orders-0") {
		t.Errorf("location.search = %q", p.search())
	}
}

// TestControllerFailoverLesson: the controller-failover lesson at the
// step where the quorum has a new controller and no leader moved, then at
// the step where the cut-off follower is back in the ISR; both render as
// the native replay says.
func TestControllerFailoverLesson(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "controller-failover", "partition ")
	// The step asks who the controller is now; answers=N:0 is "Show me".
	p := open(t, fmt.Sprintf("/?lesson=controller-failover&step=%d&answers=%d:0", n+2, n+2))
	p.checkStep()
	if got := p.text(".step"); !strings.Contains(got, "controller b1 (raft term 2)") {
		t.Errorf("step %d does not show the new controller: %q", n+2, got)
	}
	p.shot("new-controller")
	heal := firstCommand(t, "controller-failover", "heal")
	p.route(fmt.Sprintf("/?lesson=controller-failover&step=%d", heal+1))
	p.checkStep()
	if got := p.text(".step"); !strings.Contains(got, "(ISR grew)") {
		t.Errorf("step %d does not show the follower rejoining the ISR: %q", heal+1, got)
	}
	p.shot("rejoined")
}
