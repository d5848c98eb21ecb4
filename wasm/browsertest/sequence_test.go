package browsertest

import (
	"fmt"
	"strconv"
	"testing"
)

// openSequence opens the sequence view as a learner does, and waits for
// the page to draw it (it draws it only while it is open).
func (p *page) openSequence() {
	p.t.Helper()
	p.click("details.seq > summary")
	p.poll(`!!document.querySelector("details.seq[open]:not([data-lazy]) .seq-scroll")`, "the sequence view drawn")
}

// TestSequenceFollowsTheStep: the sequence view, once opened, scrolls to
// the current step with its lane headers on top, and stays open and
// follows as the learner steps on; the background toggle of the cards
// stays ticked too.
func TestSequenceFollowsTheStep(t *testing.T) {
	t.Parallel()
	// Step 15 asks a question: answered (Show me), it shows its messages.
	p := open(t, "/?lesson=coordinator-failover&step=14&answers=15:0")
	box := `document.querySelector(".seq .seq-folded")`
	p.openSequence()
	check := func(step int) {
		t.Helper()
		p.waitText("#pos", fmt.Sprintf("Step %d of", step))
		if got := p.eval(`String(document.querySelector("details.seq").open)`); got != "true" {
			t.Fatalf("step %d: the sequence view closed", step)
		}
		want, _ := strconv.Atoi(p.eval(box + `.dataset.current`))
		top, _ := strconv.Atoi(p.eval(`String(Math.round(` + box + `.scrollTop))`))
		most, _ := strconv.Atoi(p.eval(`String(` + box + `.scrollHeight - ` + box + `.clientHeight)`))
		if want == 0 || top != min(want, most) {
			t.Errorf("step %d: the sequence is scrolled to %d px, want the current step at %d (at most %d)", step, top, want, most)
		}
		// The lane headers stay at the top of the scrolled box.
		if d := p.eval(`String(Math.round(document.querySelector(".seq .seq-folded .seqlanes").getBoundingClientRect().top - ` + box + `.getBoundingClientRect().top))`); d != "0" {
			t.Errorf("step %d: the lane headers are %s px below the top of the box, want 0 (sticky)", step, d)
		}
		p.shot(fmt.Sprintf("step%d", step))
	}
	check(14)
	p.click("#next")
	check(15)
	p.click(".bg-all-toggle")
	p.click("#prev")
	p.waitText("#pos", "Step 14 of")
	p.click("#next")
	p.waitText("#pos", "Step 15 of")
	if got := p.eval(`String(document.querySelector(".bg-all-toggle").checked)`); got != "true" {
		t.Error("the background traffic toggle was reset by a render")
	}
	if got := p.eval(`getComputedStyle(document.querySelector(".bg-rows")).display`); got == "none" {
		t.Error("ticked, the background traffic is still hidden")
	}
}
