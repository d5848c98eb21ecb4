package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// The static site (make site), as a plain file server serves it: every
// page prerendered at its path, the bundles as the gzip files they are.

// openBare opens path on base in a tab whose bundles never arrive: what it
// shows is what the host sent, before any wasm runs.
func openBare(t *testing.T, base, path string) *page {
	t.Helper()
	p := blankTab(t, browser(t, chromium(t)), base)
	p.do(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/*.wasm.gz", Block: true}}})
		return err
	}))
	p.do(chromedp.Navigate(base + path))
	p.do(chromedp.WaitVisible(chromedp.CSS("#pos")))
	return p
}

// TestStaticFirstPaint: a deep link to a lesson's step, on the static
// site, shows that step's diagram, narration and state with no engine at
// all: the page was prerendered for its path. In Chinese too.
func TestStaticFirstPaint(t *testing.T) {
	t.Parallel()
	checkFirstPaint(t, serve(t, true))
}

// checkFirstPaint: a deep link on base shows its step before any wasm.
func checkFirstPaint(t *testing.T, base string) {
	t.Helper()
	for _, tc := range []struct{ path, query string }{
		{"/en/segments/4/", "lesson=segments&step=4&lang=en"},
		{"/zh/replication/7/", "lesson=replication&step=7&lang=zh"},
	} {
		p := openBare(t, base, tc.path)
		want := play.Parse(tc.query).Page()
		lang := want.Lang
		if got := p.text("#pos"); got != ui.Trf(lang, "Step %d of %d", want.Pos, want.Total) {
			t.Errorf("%s shows %q before any wasm", tc.path, got)
		}
		if got := p.count(".system svg.dg.wide g.node"); got != len(want.State.Actors) {
			t.Errorf("%s: %d nodes drawn before any wasm, want %d", tc.path, got, len(want.State.Actors))
		}
		if got := p.text(".step .narration"); got != want.Step.Narration[0] {
			t.Errorf("%s: narration %q, want %q", tc.path, got, want.Step.Narration[0])
		}
		if got := p.eval(`document.documentElement.lang`); got != ui.HTMLLang(lang) {
			t.Errorf("%s: <html lang=%q>", tc.path, got)
		}
		if ready := p.eval(`document.documentElement.dataset.ready || ""`); ready != "" {
			t.Errorf("%s: the page says it is ready without its engine", tc.path)
		}
		p.shot(strings.NewReplacer("/", "-").Replace(strings.Trim(tc.path, "/")) + "-no-wasm")
	}
}

// TestStaticStepping: on the static site the wasm takes over the
// prerendered page: Next moves the step in place and the address bar
// shows its path; a deep link to a cluster lesson runs on the cluster
// bundle alone; a Chinese page is Chinese after the engine's render too.
func TestStaticStepping(t *testing.T) {
	t.Parallel()
	checkStepping(t, serve(t, true))
}

// checkStepping: on base, the wasm takes over a prerendered page, moves
// it in place, and runs a cluster lesson in Chinese.
func checkStepping(t *testing.T, base string) {
	t.Helper()
	p := openAt(t, base, "/en/segments/4/")
	if got := p.fetched(); got != play.Bundle {
		t.Errorf("wasm fetched: %q, want only %s", got, play.Bundle)
	}
	p.checkStep()
	p.eval(`window.samePage = "yes"`)
	p.click("#next")
	p.waitText("#pos", "Step 5 of")
	if got := p.eval(`location.pathname`); got != "/en/segments/5/" {
		t.Errorf("after Next the address is %s", got)
	}
	p.checkStep()
	if p.eval(`window.samePage || ""`) != "yes" {
		t.Errorf("Next loaded a page")
	}
	p.shot("segments-5")

	c := openAt(t, base, "/zh/replication/7/")
	if got := c.fetched(); got != play.ClusterBundle {
		t.Errorf("a cluster lesson fetched %q, want only %s", got, play.ClusterBundle)
	}
	c.checkLanguage("zh")
	c.measure()
	c.shot("replication-7-zh")
}

// TestStaticSaveAndTeach: a static host keeps no saved links and runs no
// class: Save shows the whole link, which holds everything, and Teach says
// where a class runs.
func TestStaticSaveAndTeach(t *testing.T) {
	t.Parallel()
	n := firstCommand(t, "segments", "produce ")
	p := openStatic(t, fmt.Sprintf("/en/segments/%d/", n))
	p.click(`button[data-cmd="crash b0"]`)
	p.waitText("#pos", fmt.Sprintf("Step %d of", n+1))
	href := p.href()
	p.click("[data-save]")
	p.waitText("#notice", "keeps no saved links")
	if got := p.eval(`document.getElementById("notice-link").value`); got != href {
		t.Errorf("Save on a static host offers %q, want the page's own link %q", got, href)
	}
	p.shot("save")
	p.click("[data-notice-act=close]")
	p.click("[data-room-act=teach]")
	p.waitText("#notice", "needs a Gregor server")
	p.shot("teach")
}
