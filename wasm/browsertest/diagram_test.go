package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// reducedMotion asks the page for prefers-reduced-motion (on) or lifts it.
func (p *page) reducedMotion(on bool) {
	p.t.Helper()
	params := emulation.SetEmulatedMediaParams{}
	if on {
		params.Features = []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "reduce"}}
	}
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, params)
		return err
	}))
}

// checkDiagram compares the visible diagram with the native one: a node
// per actor of the snapshot, in order, and an arrow per message of the
// step; and the page does not scroll sideways.
func (p *page) checkDiagram(width int, want ui.Diagram, actors []string) {
	p.t.Helper()
	layout := "wide"
	if width <= 640 {
		layout = "narrow"
	}
	svg := fmt.Sprintf(".system svg.dg.%s", layout)
	raw := p.eval(fmt.Sprintf(`JSON.stringify({display: getComputedStyle(document.querySelector(%q)).display, actors: [...document.querySelectorAll(%q)].map(n => n.dataset.actor || ""), arrows: document.querySelectorAll(%q).length})`, svg, svg+" g.node", svg+" g.msg"))
	var got struct {
		Display string
		Actors  []string
		Arrows  int
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		p.t.Fatalf("reading the diagram: %v", err)
	}
	if got.Display == "none" {
		p.t.Errorf("%dpx: the %s diagram is hidden", width, layout)
	}
	if !slices.Equal(got.Actors, actors) {
		p.t.Errorf("%dpx: the nodes are %v, want one per actor, in order: %v", width, got.Actors, actors)
	}
	if got.Arrows != len(want.Arrows) {
		p.t.Errorf("%dpx: %d arrows, want one per message of the step (%d)", width, got.Arrows, len(want.Arrows))
	}
	if width <= 640 {
		if over, wide := p.sideways(); over != "" {
			p.t.Errorf("%dpx: the page scrolls sideways by %spx (%s)", width, over, wide)
		}
	}
}

// sideways is how far the page scrolls sideways ("" if not at all), and
// the first elements wider than the window.
func (p *page) sideways() (over, wide string) {
	p.t.Helper()
	p.allRendered(func() {
		if over = p.eval(`String(document.documentElement.scrollWidth - window.innerWidth)`); over == "0" || over[0] == '-' {
			over = ""
			return
		}
		wide = p.eval(`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest("details:not([open])")).slice(0, 3).map(e => e.tagName + "." + (e.getAttribute("class") || "") + " to " + Math.round(e.getBoundingClientRect().right) + "px").join(", ")`)
	})
	return over, wide
}

// TestDiagramEveryLesson opens every lesson at its first and last step,
// at 1280px and at 390px, and checks the diagram against the native
// replay of the same URL. One tab goes from lesson to lesson in place
// (route), the one-broker lessons on gregor.wasm and then the cluster
// lessons on the cluster bundle, as a learner's browser runs them.
func TestDiagramEveryLesson(t *testing.T) {
	t.Parallel()
	p := open(t, "/")
	p.reducedMotion(true) // screenshots show each step's final state
	for _, slug := range lessonsByBundle() {
		total := len(play.Parse("lesson=" + slug).Items)
		for _, step := range []int{1, total} {
			query := fmt.Sprintf("lesson=%s&step=%d", slug, step)
			p.do(chromedp.EmulateViewport(1280, 900))
			p.route("/?" + query)
			page := play.Parse(query).Page()
			want := ui.NewDiagram(page.State, page.Step.Exchanges, page.Step.Command)
			var actors []string
			for _, a := range page.State.Actors {
				actors = append(actors, a.Name)
			}
			p.waitText("#pos", fmt.Sprintf("Step %d of %d", step, total))
			if got, want := p.eval(`window.gregorBundle`), play.BundleFor(query); got != want {
				t.Errorf("%s runs on %s, want %s", query, got, want)
			}
			for _, width := range []int{1280, 390} {
				p.do(chromedp.EmulateViewport(int64(width), 900))
				p.checkDiagram(width, want, actors)
				p.shotView(fmt.Sprintf("%s-%d-%dpx", slug, step, width))
			}
		}
	}
}

// TestDiagramAnimation: each message moves along its arrow unless the
// learner asked for reduced motion, which shows the final state at once.
func TestDiagramAnimation(t *testing.T) {
	t.Parallel()
	step := firstCommand(t, "delivery-semantics", "produce p1")
	p := open(t, fmt.Sprintf("/?lesson=delivery-semantics&step=%d", step))
	dot := `getComputedStyle(document.querySelector(".system svg.dg.wide g.msg .dot")).animationName`
	if got := p.eval(dot); got != "dg-travel" && got != "dg-stop" {
		t.Errorf("dot animation %q, want dg-travel or dg-stop", got)
	}
	p.reducedMotion(true)
	if got := p.eval(dot); got != "none" {
		t.Errorf("under prefers-reduced-motion the dot animates (%q)", got)
	}
	if got := p.eval(`getComputedStyle(document.querySelector(".system svg.dg.wide g.msg .wire")).strokeDashoffset`); got != "0px" && got != "0" {
		t.Errorf("under prefers-reduced-motion the arrow is not drawn in full (dashoffset %q)", got)
	}
	p.shot("reduced")
}
