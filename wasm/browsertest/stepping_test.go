package browsertest

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

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
