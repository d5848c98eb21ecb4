package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/ui"
)

// maxHeight bounds a step's page, in CSS px, at 1280px and 390px wide.
// Measured by TestWalkEveryLesson on every step of every lesson: the
// tallest is assignors' step 24 (three groups rebalancing, 21 exchanges)
// at 7,454 px and 15,338 px; before background traffic was folded,
// coordinator-failover's step 15 was some 75,000 px.
var maxHeight = map[int]int{1280: 10_000, 390: 20_000}

// height measures the page at a width (and leaves the viewport there),
// failing the test past maxHeight.
func (p *page) height(width int, where string) int {
	p.t.Helper()
	p.do(chromedp.EmulateViewport(int64(width), 900))
	h, _ := strconv.Atoi(p.eval(`String(document.documentElement.scrollHeight)`))
	if h > maxHeight[width] {
		p.t.Errorf("%s at %dpx: the page is %d px tall, more than %d", where, width, h, maxHeight[width])
	}
	return h
}

// TestPageHeightWorstSteps opens the tallest steps, the dense ones, at
// both widths.
func TestPageHeightWorstSteps(t *testing.T) {
	t.Parallel()
	p := open(t, "/")
	p.reducedMotion(true)
	for _, q := range []string{"lesson=coordinator-failover&step=15", "lesson=assignors&step=24", "lesson=coordinator-failover&step=8"} {
		p.do(chromedp.EmulateViewport(1280, 900))
		p.route("/?" + q)
		for _, width := range []int{1280, 390} {
			h := p.height(width, q)
			t.Logf("MEASURE %s at %dpx: %d px tall", q, width, h)
			p.shot(fmt.Sprintf("%s-%dpx", strings.NewReplacer("lesson=", "", "&step=", "-").Replace(q), width))
		}
	}
}

// TestWalkEveryLesson steps through every lesson with its Next link, as
// a learner does, and holds each page to maxHeight at 1280px and 390px;
// it saves a screenshot of the first, middle and last step at both
// widths, and writes every height to heights.txt beside them. It takes
// minutes (every step of 25 lessons, twice), so `make test` leaves it out:
// GREGOR_WALK=1 runs it. Every step's size is held in make test by
// lessons/play's TestEveryStepRenders and the worst steps' height by
// TestPageHeightWorstSteps.
//
// GREGOR_WALK=slug,slug walks only those lessons, in every language, and
// saves a screenshot of every step at both widths, for reading a lesson
// as a learner does; every step is also checked for sideways scrolling
// at 390px and for diagram labels drawn over one another.
func TestWalkEveryLesson(t *testing.T) {
	t.Parallel()
	only := os.Getenv("GREGOR_WALK")
	if only == "" {
		t.Skip("GREGOR_WALK=1 walks every step of every lesson in the browser (minutes)")
	}
	langs, every := []string{"en"}, only != "1"
	if every {
		langs = ui.Languages
	}
	var table strings.Builder
	for _, m := range lessons.Catalog {
		if every && !slices.Contains(strings.Split(only, ","), m.Slug) {
			continue
		}
		for _, lang := range langs {
			walkLesson(t, m.Slug, lang, every, &table)
		}
	}
	dir := os.Getenv("GREGOR_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "gregor-browser-tests")
	}
	os.WriteFile(filepath.Join(dir, "heights.txt"), []byte(table.String()), 0o644)
}

// walkLesson walks one lesson in one language (see TestWalkEveryLesson),
// with a screenshot of every step if every, else of three.
func walkLesson(t *testing.T, slug, lang string, every bool, table *strings.Builder) {
	total := len(play.Parse("lesson=" + slug).Items)
	p := open(t, "/?lesson="+slug+"&lang="+lang) // a browser per lesson: each has 90 s
	p.reducedMotion(true)
	shots := map[int]bool{1: true, (total + 1) / 2: true, total: true}
	tallest, at := 0, 0
	for step := 1; step <= total; step++ {
		if step > 1 {
			p.eval(`document.getElementById("next").click(), ""`)
		}
		p.waitText("#pos", ui.Trf(lang, "Step %d of %d", step, total))
		if every { // the sequence view shown, for the screenshots
			if p.count("details.seq[data-lazy]") > 0 {
				p.openSequence()
			}
		}
		where := fmt.Sprintf("%s (%s) step %d", slug, lang, step)
		var h [2]int
		for i, width := range []int{1280, 390} {
			h[i] = p.height(width, where)
			if every {
				p.checkLayout(width, where)
			}
			if every || shots[step] {
				p.shot(fmt.Sprintf("%s-%s-%02d-%dpx", slug, lang, step, width))
			}
		}
		p.do(chromedp.EmulateViewport(1280, 900))
		fmt.Fprintf(table, "%s\t%s\t%d\t%d\t%d\n", slug, lang, step, h[0], h[1])
		if h[1] > tallest {
			tallest, at = h[1], step
		}
	}
	t.Logf("MEASURE %s (%s): tallest at 390px is step %d, %d px", slug, lang, at, tallest)
}

// checkLayout fails a step whose page scrolls sideways at 390px or whose
// visible diagram draws two text labels over one another.
func (p *page) checkLayout(width int, where string) {
	p.t.Helper()
	if over, wide := p.sideways(); width <= 640 && over != "" {
		p.t.Errorf("%s at %dpx: the page scrolls sideways by %s px (%s)", where, width, over, wide)
	}
	overlaps := p.eval(`(() => {
		const svg = [...document.querySelectorAll(".system svg.dg")].find(s => getComputedStyle(s).display != "none");
		if (!svg) return "";
		const boxes = [...svg.querySelectorAll("text")].filter(e => e.textContent.trim()).map(e => [e, e.getBoundingClientRect()]);
		const out = [];
		for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
			const [a, r] = boxes[i], [b, s] = boxes[j];
			const x = Math.min(r.right, s.right) - Math.max(r.left, s.left), y = Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top);
			if (x > 2 && y > 2) out.push(JSON.stringify(a.textContent.trim()) + " over " + JSON.stringify(b.textContent.trim()));
		}
		return out.slice(0, 4).join("; ");
	})()`)
	if overlaps != "" {
		p.t.Errorf("%s at %dpx: diagram labels overlap: %s", where, width, overlaps)
	}
}
