package browsertest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gregor-kafka/gregor/lessons/play"
)

// TestStatePanel opens a decisive step of five lessons at a desktop and a
// phone width, after the wasm's own render, and checks that the state
// panel draws what the step is about (cells and markers, the group's grid,
// the share partition's records in flight,
// the transaction's state, the lookup), that the page does not scroll
// sideways and is not absurdly tall, and that it draws as many partitions
// as the native replay of the URL holds after leaving out the empty
// internal ones. Screenshots: <test>-<lesson>-<width>.png.
func TestStatePanel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path string
		want       []string // selectors that must match
	}{
		{"transactions", "/?lesson=transactions&step=13", []string{
			`.txn[data-txn="app"][data-state="CompleteCommit"] .ts.here`,
			`[data-partition="orders-0"] .cell.k-txn`, `[data-partition="orders-0"] .cell.k-commit`,
			`.clients [data-producer="p1"]`, `.partition .markers .m-LSO`}},
		{"consumer-groups", "/?lesson=consumer-groups&step=19", []string{
			`.group[data-group="shop"] ol.machine li.here`, `ol.grid li.own.c0.moved`, `ol.grid li.own.c1`, `ul.members .swatch`}},
		{"segments", "/?lesson=segments&step=8&answers=8:0", []string{ // its question shown
			`.lookup[data-lookup="offset 7"]`, `.cell.found[data-offset="7"]`, `.cell.scanned`, `.entries li.chosen`, `.seg[data-segment="00000000000000000008.log"] .cell.next`}},
		{"share-groups", "/?lesson=share-groups&step=10", []string{
			`.shares .group[data-share="workers/jobs-0"] li.own.sh-acquired.c0[data-offset="0"]`, `li.own.sh-acquired.c1[data-offset="3"]`}},
		{"replication", "/?lesson=replication&step=17", []string{
			`.role.leader`, `.role.follower`, `.partition .cell.above-hw`, `ul.replicas li.leader`, `.isr.in`}},
	}
	p := open(t, "/")
	for _, c := range cases {
		native := play.Parse(strings.TrimPrefix(c.path, "/?")).Page().State
		wantParts := 0
		for _, b := range native.Brokers {
			for _, pt := range b.Partitions {
				if !pt.Internal || pt.LEO > 0 {
					wantParts++
				}
			}
		}
		p.do(chromedp.EmulateViewport(1280, 900))
		p.route(c.path)
		for _, width := range []int64{1280, 390} {
			p.do(chromedp.EmulateViewport(width, 900))
			for _, sel := range c.want {
				if p.count(sel) == 0 {
					p.shot(fmt.Sprintf("%s-%d-failed", c.name, width))
					t.Errorf("%s at %d px: nothing matches %s", c.name, width, sel)
				}
			}
			if got := p.count("section.partition"); got != wantParts {
				t.Errorf("%s at %d px: %d partitions drawn, the native replay holds %d with data", c.name, width, got, wantParts)
			}
			scroll, _ := strconv.Atoi(p.eval(`String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`))
			height, _ := strconv.Atoi(p.eval(`String(document.documentElement.scrollHeight)`))
			wide := p.eval(`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).slice(0, 3).map(e => e.tagName + "." + e.className).join(" ")`)
			t.Logf("MEASURE %s at %d px: page %d px tall, %d px of sideways scroll", c.name, width, height, scroll)
			if scroll > 0 {
				t.Errorf("%s at %d px scrolls sideways by %d px (wider than the window: %s)", c.name, width, scroll, wide)
			}
			if limit := map[int64]int{1280: 6000, 390: 16000}[width]; height > limit {
				t.Errorf("%s at %d px is %d px tall (limit %d)", c.name, width, height, limit)
			}
			p.shot(fmt.Sprintf("%s-%d", c.name, width))
		}
	}
}
