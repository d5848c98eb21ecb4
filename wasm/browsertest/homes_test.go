package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// What every home of the playground does alike: the native server
// (gregor serve), the static site and the Worker in front of it. A link
// copied from one opens in the others; the homes that keep saved links
// (the native server, the Worker) open /s/ID in any browser; only embeds
// may be framed where the host sets headers.

// TestSavedLinksNative: Save on the real `gregor serve`.
func TestSavedLinksNative(t *testing.T) {
	t.Parallel()
	base, _ := gregorServe(t)
	checkSaved(t, base)
	checkNoSuchSaved(t, base)
}

// TestFramingNative: an embed renders in an iframe of another origin; a
// lesson page refuses to be framed.
func TestFramingNative(t *testing.T) {
	t.Parallel()
	checkFraming(t, serve(t, false), true)
}

// TestFramingStatic: the static site's embeds render in an iframe of
// another origin. A plain file server sets no headers, so nothing
// refuses framing there (docs/playground.md says which hosts can).
func TestFramingStatic(t *testing.T) {
	t.Parallel()
	checkFraming(t, serve(t, true), false)
}

// TestWorker: the Worker in Cloudflare's local runtime, in front of the
// static site, does all a home does: first paint, stepping, Chinese, deep
// links, saved links, embeds and framing.
func TestWorker(t *testing.T) {
	t.Parallel()
	base := workerBase(t)
	t.Run("first-paint", func(t *testing.T) { checkFirstPaint(t, base) })
	t.Run("stepping", func(t *testing.T) { checkStepping(t, base) })
	t.Run("saved", func(t *testing.T) { checkSaved(t, base); checkNoSuchSaved(t, base) })
	t.Run("framing", func(t *testing.T) { checkFraming(t, base, true) })
	t.Run("requests", func(t *testing.T) { workerRequests(t, base) })
}

// TestHomesPaint opens a one-broker and a cluster lesson's deep link in a
// fresh browser context (nothing cached) on each home, side by side in
// one run, and reports the median first paint (the prerendered step) and
// interactive (the wasm's first render). It is a benchmark
// (GREGOR_BENCH=1, make bench-browser): it asserts no times.
func TestHomesPaint(t *testing.T) {
	if !benchmarking() {
		t.Skip("GREGOR_BENCH=1 measures first paint and interactive on every home")
	}
	const rounds = 7
	homes := []struct {
		name string
		base string
	}{{"native server", serve(t, false)}, {"static site", serve(t, true)}, {"Worker", workerBase(t)}}
	for _, path := range []string{"/en/segments/4/", "/en/replication/3/"} {
		for _, home := range homes {
			var paints, ready []float64
			for range rounds {
				p := openAt(t, home.base, path)
				paint, interactive := p.paintTimes()
				paints, ready = append(paints, paint), append(ready, interactive)
			}
			t.Logf("MEASURE %s on the %s, %d fresh loads: first paint median %.0f ms (max %.0f), interactive median %.0f ms (max %.0f)",
				path, home.name, rounds, quantile(paints, .5), quantile(paints, 1), quantile(ready, .5), quantile(ready, 1))
		}
	}
}

// checkSaved: a learner takes a What-if step in a lesson, saves, and the
// short link, opened in a fresh browser (no cookies, no storage), lands on
// the same step with the same What-if, as the native replay of it shows.
func checkSaved(t *testing.T, base string) {
	t.Helper()
	n := firstCommand(t, "segments", "produce ")
	p := openAt(t, base, fmt.Sprintf("/en/segments/%d/", n))
	p.click(`button[data-cmd="crash b0"]`)
	p.waitText("#pos", fmt.Sprintf("Step %d of", n+1))
	before, _ := url.Parse(p.href())
	pos := p.text("#pos")
	p.click("[data-save]")
	p.waitText("#notice", "Saved:")
	short := p.eval(`document.getElementById("notice-link").value`)
	id, ok := strings.CutPrefix(short, base+"/s/")
	if !ok || id == "" || strings.Contains(id, "/") {
		t.Fatalf("Save offers %q, want %s/s/ID", short, base)
	}
	p.shot("saved")

	q := openAt(t, base, "/s/"+id)
	q.waitText("#pos", pos)
	after, _ := url.Parse(q.href())
	if after.Path != before.Path || after.Query().Get("actions") != before.Query().Get("actions") || after.Query().Get("actions") == "" {
		t.Errorf("/s/%s opened %s, want the saved %s with its What-if", id, after, before)
	}
	q.checkStep()
	q.shot("saved-opened")
}

// checkNoSuchSaved: an id that names nothing, or could name nothing, is a
// 404 page that says so, in a browser too.
func checkNoSuchSaved(t *testing.T, base string) {
	t.Helper()
	for _, path := range []string{"/s/AAAAAAAAAAAAAAAAAAAAAA", "/s/not-an-id", "/s/"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s: %s %s, want a 404 page", path, res.Status, res.Header.Get("Content-Type"))
		}
	}
	p := openAt(t, base, "/s/AAAAAAAAAAAAAAAAAAAAAA")
	p.waitText("h1", "No such saved link")
	p.shot("no-such-saved-link")
}

// checkFraming: a page of another loopback origin frames an embed and a
// lesson page. The embed renders its step; with refuses, the lesson page
// is refused (frame-ancestors 'none'), and chromium shows its error page
// in that frame instead.
func checkFraming(t *testing.T, base string, refuses bool) {
	t.Helper()
	embed, lesson := base+"/embed/en/segments/3/", base+"/en/segments/3/"
	blog := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>a blog</title><p>A lesson, embedded:</p>
<iframe id="embed" src="%s" width="640" height="720"></iframe>
<iframe id="lesson" src="%s" width="640" height="300"></iframe>`, embed, lesson)
	}))
	t.Cleanup(blog.Close)
	p := blankTab(t, browser(t, chromium(t)), blog.URL)
	p.do(chromedp.Navigate(blog.URL))
	p.do(chromedp.WaitVisible(chromedp.CSS("#embed")))
	var frames map[string]string // by the URL each frame was given: how it loaded
	deadline := time.Now().Add(waitTimeout)
	for {
		frames = frameURLs(t, p)
		if frames[embed] == "loaded" && (frames[lesson] != "" || !refuses) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the frames: %v", frames)
		}
		time.Sleep(100 * time.Millisecond)
	}
	nodes, err := chromedp.Run(p.ctx, chromedp.Nodes(chromedp.CSS("#embed")))
	if err != nil || len(nodes) != 1 {
		t.Fatalf("the embed's frame: %v", err)
	}
	wait, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	pos, err := chromedp.Run(wait, chromedp.Text(chromedp.CSS("html[data-ready] #pos"), chromedp.FromNode(nodes[0])))
	if err != nil {
		p.shot("embed-failed")
		t.Fatalf("the embed shows no step: %v", err)
	}
	if !strings.Contains(pos, "Step 3 of") {
		t.Errorf("the embed shows %q, want step 3", pos)
	}
	switch got := frames[lesson]; {
	case refuses && got != "refused":
		t.Errorf("a lesson page in a frame of another origin: %s, want it refused", got)
	case !refuses && got != "loaded":
		t.Errorf("a lesson page in a frame on a host that sets no headers: %s", got)
	}
	p.shot("framed")
}

// frameURLs are the page's child frames by the URL they were given, each
// "loaded", or "refused" where chromium shows its error page instead.
func frameURLs(t *testing.T, p *page) map[string]string {
	t.Helper()
	var tree *cdppage.FrameTree
	p.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		res, err := cdp.Call(ctx, tg, cdppage.GetFrameTree, cdp.Empty{})
		tree = res.FrameTree
		return err
	}))
	out := map[string]string{}
	for _, c := range tree.ChildFrames {
		switch f := c.Frame; {
		case f.UnreachableURL != "":
			out[f.UnreachableURL] = "refused"
		case strings.HasPrefix(f.URL, "chrome-error:"):
			out[f.URL] = "refused"
		default:
			out[f.URL] = "loaded"
		}
	}
	return out
}

// workerRequests times the Worker's own routes from outside (a request
// until the answer is read), as upper bounds of what Cloudflare bills
// (workerd sets no CPU limit): the first after start, and then warm ones.
// It reports, and asserts only what each answers.
func workerRequests(t *testing.T, base string) {
	routes := []struct {
		name, method, path string
		want               int
	}{
		{"open", "GET", "", http.StatusFound},
		{"unknown", "GET", "/s/AAAAAAAAAAAAAAAAAAAAAA", http.StatusNotFound},
		{"save", "POST", "/api/saved", http.StatusCreated},
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	body := savedBody(t, base)
	res, err := client.Post(base+"/api/saved", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var saved struct{ Path string }
	jsonDecode(t, res, &saved)
	routes[0].path = "/" + saved.Path
	n := 20
	if benchmarking() {
		n = 200
	}
	for _, r := range routes {
		var took []time.Duration
		for range n {
			var send io.Reader = http.NoBody
			if r.method == "POST" {
				send = strings.NewReader(body)
			}
			req, _ := http.NewRequest(r.method, base+r.path, send)
			start := time.Now()
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			drain(res)
			took = append(took, time.Since(start))
			if res.StatusCode != r.want {
				t.Fatalf("%s %s: %s, want %d", r.method, r.path, res.Status, r.want)
			}
		}
		sorted := append([]time.Duration(nil), took...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		fmt.Printf("browsertest: the Worker, %s (%s %s): median %v, p99 %v over %d requests\n", r.name, r.method, r.path,
			sorted[len(sorted)/2].Round(100*time.Microsecond), sorted[len(sorted)*99/100].Round(100*time.Microsecond), n)
	}
}

// savedBody is what a page on base sends to save segments' step 3.
func savedBody(t *testing.T, base string) string {
	t.Helper()
	res, err := http.Get(base + "/assets/lessons/index.json")
	if err != nil {
		t.Fatal(err)
	}
	var versions map[string]string
	jsonDecode(t, res, &versions)
	return fmt.Sprintf(`{"link":"en/segments/3/?v=%s"}`, versions["segments"])
}

func jsonDecode(t *testing.T, res *http.Response, v any) {
	t.Helper()
	defer res.Body.Close()
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatalf("%s: %s: %v", res.Request.URL, res.Status, err)
	}
}

func drain(res *http.Response) {
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

// benchmarking: GREGOR_BENCH is set, and the tests measure at length.
func benchmarking() bool { return os.Getenv("GREGOR_BENCH") != "" }
