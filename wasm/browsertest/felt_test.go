package browsertest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gregor-kafka/gregor/lessons/play"
)

// Stepping as a learner feels it: from the key press to the paint that
// shows the new step. The page's own figure (gregorLastRenderMs) leaves
// out the style, layout and paint that follow a render, and the time the
// key event waited to be handled.

// feltJS installs, once per page, a clock on every step: a capturing
// keydown listener takes the event's time, and the first change in #app
// after it (a render changes only what differs: index.html's
// gregorMorph) waits for the next animation frame and then for a task
// posted from it, which runs once that frame's style, layout and paint
// are done (a second animation frame would add the idle rest of the
// following frame). It records how long that took, with where the render
// went (gregorRenderParts). The browser's own Event Timing of each
// keydown (to the next paint, in 8 ms steps, reported only from 16 ms)
// is kept beside it, in gregorEventTiming, as a check on the clock.
const feltJS = `(() => {
  if (window.gregorFelt) return "";
  window.gregorFelt = [];
  window.gregorEventTiming = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) if (e.name === "keydown") window.gregorEventTiming.push(e.duration);
  }).observe({ type: "event", durationThreshold: 16 });
  let t0;
  document.addEventListener("keydown", e => { t0 = e.timeStamp; }, true);
  const afterPaint = (fn) => requestAnimationFrame(() => {
    const c = new MessageChannel();
    c.port1.onmessage = fn;
    c.port2.postMessage(0);
  });
  new MutationObserver(() => {
    if (t0 === undefined) return;
    const start = t0, parts = window.gregorRenderParts, h = window.gregorHandled || [0, 0];
    t0 = undefined;
    afterPaint(() => window.gregorFelt.push([performance.now() - start, ...parts, h[0] - start, h[1] - h[0]]));
  }).observe(document.getElementById("app"), { childList: true, subtree: true, characterData: true, attributes: true });
  return "";
})()`

// readMoment is how long the benchmark reads each step before the next
// key press: far shorter than a learner, long enough for an idle moment.
const readMoment = 800 * time.Millisecond

// felt is one step as felt: the whole, and the render's parts (page,
// templ, DOM, in ms) and the HTML it wrote (bytes).
type felt struct{ total, page, templ, dom, html, queued, handler float64 }

// feltSteps presses ArrowRight n times, each when the step before has
// painted and a learner's moment later (the page draws the next step in
// an idle moment: prefetch.go), and returns each step as felt.
//
// It also returns the browser's Event Timing of those key presses that
// took 16 ms or more (the shorter ones it does not report).
func (p *page) feltSteps(n int) ([]felt, []float64) {
	p.t.Helper()
	p.eval(feltJS)
	p.eval(`window.gregorFelt.length = 0, window.gregorEventTiming.length = 0, ""`)
	p.eval(`document.activeElement && document.activeElement.blur(), ""`)
	for i := 1; i <= n; i++ {
		p.do(chromedp.Sleep(readMoment)) // a learner reads the step; not a synchronisation
		p.do(chromedp.KeyEvent(kb.ArrowRight))
		p.poll(fmt.Sprintf(`window.gregorFelt.length >= %d`, i), fmt.Sprintf("step %d painted", i))
	}
	var out []felt
	for _, line := range strings.Split(p.eval(`window.gregorFelt.map(f => f.join(" ")).join("\n")`), "\n") {
		var v [7]float64
		for j, f := range strings.Fields(line) {
			if j < len(v) {
				v[j], _ = strconv.ParseFloat(f, 64)
			}
		}
		out = append(out, felt{v[0], v[1], v[2], v[3], v[4], v[5], v[6]})
	}
	var timing []float64
	for _, f := range strings.Fields(p.eval(`window.gregorEventTiming.join(" ")`)) {
		d, _ := strconv.ParseFloat(f, 64)
		timing = append(timing, d)
	}
	return out, timing
}

// quantile is the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return -1
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}

// TestSteppingFelt walks every lesson step by step with the arrow key, on
// each home (the native server, the static site, the Worker), and reports the median,
// p90 and max per lesson, and where the median step's time went. It is a
// benchmark (GREGOR_BENCH=1, make bench-browser): it asserts no times.
// GREGOR_BENCH=slug,slug walks only those lessons, and GREGOR_HOMES
// (say "static site,Worker") only those homes.
func TestSteppingFelt(t *testing.T) {
	only := os.Getenv("GREGOR_BENCH")
	if only == "" {
		t.Skip("GREGOR_BENCH=1 measures stepping on every lesson and home (minutes)")
	}
	for _, home := range []struct {
		name string
		base func(*testing.T) string
	}{
		{"native server", func(t *testing.T) string { return serve(t, false) }},
		{"static site", func(t *testing.T) string { return serve(t, true) }},
		{"Worker", workerBase},
	} {
		if homes := os.Getenv("GREGOR_HOMES"); homes != "" && !strings.Contains(homes, home.name) {
			continue
		}
		// Each home in a subtest of its own, so that its tab closes when
		// its walk ends: the tabs of one origin share a renderer and its
		// main thread, and a learner has one tab open, not three.
		t.Run(home.name, func(t *testing.T) { feltOn(t, home.name, home.base(t), only) })
	}
}

// feltOn walks the lessons named by only ("1": all) on one home.
func feltOn(t *testing.T, home, base, only string) {
	p := openAt(t, base, "/")
	var all []float64
	for _, slug := range lessonsByBundle() {
		if only != "1" && !slices.Contains(strings.Split(only, ","), slug) {
			continue
		}
		total := len(play.Parse("lesson=" + slug).Items)
		p.route(fmt.Sprintf("/en/%s/", slug))
		p.waitText("#pos", fmt.Sprintf("Step 1 of %d", total))
		steps, timing := p.feltSteps(total - 1)
		var tot, pg, tm, dm, sz, qd, hr []float64
		for _, f := range steps {
			tot, pg, tm, dm, sz, qd, hr = append(tot, f.total), append(pg, f.page), append(tm, f.templ), append(dm, f.dom), append(sz, f.html), append(qd, f.queued), append(hr, f.handler)
		}
		all = append(all, tot...)
		t.Logf("MEASURE %s, %s, %d steps felt: median %.0f ms, p90 %.0f, max %.0f (medians: the handler starts %.0f ms after the key and takes %.0f; page %.0f, templ %.0f, DOM %.0f ms, 0 where drawn ahead; %.0f KB of HTML); Event Timing: %d of the key presses took 16 ms or more, at most %.0f",
			home, slug, len(steps), quantile(tot, .5), quantile(tot, .9), quantile(tot, 1), quantile(qd, .5), quantile(hr, .5), quantile(pg, .5), quantile(tm, .5), quantile(dm, .5), quantile(sz, .5)/1024, len(timing), quantile(timing, 1))
	}
	t.Logf("MEASURE %s, every lesson, %d steps felt: median %.0f ms, p90 %.0f, max %.0f", home, len(all), quantile(all, .5), quantile(all, .9), quantile(all, 1))
}
