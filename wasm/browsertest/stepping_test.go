package browsertest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/lessons/play"
)

// stepTimes clicks Next through steps from..to-1 and back, checking each
// step against the native replay, and returns what each render took in the
// wasm (Page from the kept timeline, templ, DOM), in ms.
func (p *page) stepTimes(from, to, total int) []float64 {
	p.t.Helper()
	var ms []float64
	read := func() {
		v, err := strconv.ParseFloat(p.eval(`String(window.gregorLastRenderMs)`), 64)
		if err != nil {
			p.t.Fatal(err)
		}
		ms = append(ms, v)
	}
	for n := from + 1; n <= to; n++ {
		p.click("#next")
		p.waitText("#pos", fmt.Sprintf("Step %d of %d", n, total))
		read()
	}
	p.checkStep()
	for n := to - 1; n >= from; n-- {
		p.click("#prev")
		p.waitText("#pos", fmt.Sprintf("Step %d of %d", n, total))
		read()
	}
	p.checkStep()
	return ms
}

func median(ms []float64) float64 {
	s := slices.Clone(ms)
	slices.Sort(s)
	if len(s) == 0 {
		return -1
	}
	return s[len(s)/2]
}

// TestSteppingOneBroker steps through a one-broker lesson forward and back
// and reports how long a step takes (budget: 50 ms median; reported, not
// asserted: timings depend on the machine).
func TestSteppingOneBroker(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=idempotent-producer")
	defer p.shot("stepping")
	p.measure()
	s, _ := p.native()
	total := len(s.Items)
	ms := p.stepTimes(1, min(total, 12), total)
	t.Logf("MEASURE one-broker lesson (idempotent-producer), %d steps forward and back: median %.1f ms, max %.1f ms per step (budget 50 ms median)", len(ms), median(ms), slices.Max(ms))
}

// TestSteppingCluster does the same in a three-broker lesson (budget:
// 150 ms median per step, interactive within 3 s of navigation).
func TestSteppingCluster(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=replication")
	defer p.shot("stepping-cluster")
	p.measure()
	if got := p.fetched(); got != play.ClusterBundle {
		t.Errorf("wasm fetched: %q, want only %s", got, play.ClusterBundle)
	}
	s, _ := p.native()
	total := len(s.Items)
	ms := p.stepTimes(1, min(total, 12), total)
	t.Logf("MEASURE cluster lesson (replication), %d steps forward and back: median %.1f ms, max %.1f ms per step (budget 150 ms median)", len(ms), median(ms), slices.Max(ms))

	// A What-if at step 3 runs the rest of the lesson from there.
	p.click("#next")
	p.click("#next")
	p.waitText("#pos", fmt.Sprintf("Step 3 of %d", total))
	p.click(`button[data-cmd="advance 1s"]`)
	p.waitText("#pos", fmt.Sprintf("Step 4 of %d", total+1))
	p.checkStep()
	t.Logf("MEASURE cluster lesson, a What-if at step 3 (replay to 3, run to the end, render): %s ms", p.eval(`String(Math.round(window.gregorLastRenderMs))`))
	ms = p.stepTimes(4, min(total+1, 10), total+1)
	t.Logf("MEASURE cluster lesson after the What-if: median %.1f ms per step", median(ms))
}

// TestPlaygroundHelp: help lists every command of the engine's table, the
// reference stays beside the prompt, Tab completes, a rejected command
// stays in the prompt with the engine's answer and out of the URL.
func TestPlaygroundHelp(t *testing.T) {
	t.Parallel()
	p := open(t, "/?playground=1&cmds=broker,topic+orders+partitions=2")
	defer p.shot("help")
	if n := p.count(".reference dl.help dt"); n != len(sim.Commands()) {
		t.Errorf("the command reference lists %d commands, the engine has %d", n, len(sim.Commands()))
	}
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "help\r"))
	p.waitText("#pos", "Step 3 of 3")
	for _, u := range sim.Commands() {
		if !strings.Contains(p.text(".step .output"), u.Synopsis) {
			t.Errorf("help does not list %q", u.Synopsis)
		}
	}
	if p.count(".reference[open]") != 1 || p.count("#cmd") != 1 {
		t.Errorf("the reference or the prompt is gone after a command")
	}
	// Tab completion: a command, then a topic the world has.
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "produ"+kb.Tab))
	if got := p.eval(`document.getElementById("cmd").value`); got != "produce" {
		t.Errorf("Tab after produ: %q", got)
	}
	if got := p.text("#completions"); got != "produce producer" {
		t.Errorf("completions listed: %q", got)
	}
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "r p1 acks=1\r"))
	p.waitText("#pos", "Step 4 of 4")
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "produce p1 ord"+kb.Tab))
	if got := p.eval(`document.getElementById("cmd").value`); got != "produce p1 orders" {
		t.Errorf("Tab after a topic's prefix: %q", got)
	}
	// A rejected command: its error shows, it stays in the prompt, the
	// URL and the step count do not change.
	before := p.search()
	p.eval(`document.getElementById("cmd").value = ""`)
	p.do(chromedp.SendKeys(chromedp.ID("cmd"), "fetch nobody orders-0\r"))
	p.waitText(".rejected", "nobody")
	if got := p.search(); got != before {
		t.Errorf("a rejected command changed the URL: %s -> %s", before, got)
	}
	if got := p.eval(`document.getElementById("cmd").value`); got != "fetch nobody orders-0" {
		t.Errorf("the rejected command is not left in the prompt: %q", got)
	}
	if got := p.eval(`document.activeElement.id`); got != "cmd" {
		t.Errorf("focus is on %q after a rejected command, want the prompt", got)
	}
	p.waitText("#pos", "Step 4 of 4")
	p.shot("rejected")
}

// TestPlayPause: Play advances the lesson by itself to its end; space
// toggles it; the speed sets --step-ms; each step is announced.
func TestPlayPause(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=segments&step=2")
	defer p.shot("play")
	s, _ := p.native()
	total := len(s.Items)
	p.do(chromedp.SetValue(chromedp.ID("speed"), "500"))
	p.eval(`document.getElementById("speed").dispatchEvent(new Event("change", {bubbles: true})), ""`)
	if got := p.eval(`document.documentElement.style.getPropertyValue("--step-ms")`); got != "500ms" {
		t.Errorf("--step-ms = %q after choosing fast", got)
	}
	p.click("#play")
	p.waitText("#pos", fmt.Sprintf("Step 3 of %d", total))
	if got := p.eval(`document.getElementById("play").getAttribute("aria-pressed")`); got != "true" {
		t.Errorf("playing, but aria-pressed = %q", got)
	}
	if got := p.text("#announce"); !strings.HasPrefix(got, "Step 3 of") && !strings.HasPrefix(got, "Step 4 of") {
		t.Errorf("the live region says %q", got)
	}
	// Space pauses (focus on the page, not on a control) and plays again.
	p.eval(`document.activeElement.blur(), ""`)
	p.do(chromedp.KeyEvent(" "))
	p.waitAttr("#play", "aria-pressed", "false")
	p.do(chromedp.KeyEvent(" "))
	p.waitAttr("#play", "aria-pressed", "true")
	// It stops by itself at each question, goes on when played again
	// (the question left unanswered), and stops at the end.
	for {
		p.waitAttr("#play", "aria-pressed", "false")
		if s, pos := p.native(); pos == total {
			break
		} else if !s.Predicting() {
			t.Fatalf("Play stopped at step %d, which asks nothing", pos)
		}
		p.click("#play")
	}
	p.waitText("#pos", fmt.Sprintf("Step %d of %d", total, total))
}

// waitAttr waits until the first match's attribute reads want.
func (p *page) waitAttr(sel, attr, want string) {
	p.t.Helper()
	js := fmt.Sprintf(`((document.querySelector(%q)||{getAttribute(){return ""}}).getAttribute(%q)) == %q`, sel, attr, want)
	if _, err := chromedp.Run(p.ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(waitTimeout))); err != nil {
		p.shot("failed")
		p.t.Fatalf("waiting for %s[%s=%q]: %v", sel, attr, want, err)
	}
}

// TestNarrow: at 390 px wide nothing scrolls sideways, Next stays on
// screen at the bottom of a long step, the page has one h1, and the
// focus stays on the control used.
func TestNarrow(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=transactions&step=3")
	p.do(chromedp.EmulateViewport(390, 844))
	defer p.shot("narrow")
	for _, q := range []string{"?lesson=transactions&step=3", "?lesson=replication&step=4", "?playground=1&cmds=broker,topic+t", "?lesson=nope", ""} {
		p.route("/" + q)
		if w := p.eval(`String(document.documentElement.scrollWidth)`); w != "390" {
			t.Errorf("%s: the page is %s px wide at 390", q, w)
			p.shot("too-wide")
		}
		if n := p.count("h1"); n != 1 {
			t.Errorf("%s: %d h1", q, n)
		}
	}
	p.route("/?lesson=transactions&step=3")
	p.eval(`window.scrollTo(0, document.body.scrollHeight), ""`)
	if got := p.eval(`(() => { const r = document.getElementById("next").getBoundingClientRect(); return String(r.top >= 0 && r.bottom <= innerHeight) })()`); got != "true" {
		t.Errorf("Next is off screen at the bottom of the page")
	}
	p.shot("narrow-bottom")
	p.eval(`window.scrollTo(0, 0), ""`)
	p.click("#next")
	p.waitText("#pos", "Step 4 of")
	if got := p.eval(`document.activeElement.id`); got != "next" {
		t.Errorf("after Next, the focus is on %q", got)
	}
	if got := p.text("#announce"); !strings.HasPrefix(got, "Step 4 of") {
		t.Errorf("the live region says %q", got)
	}
}
