package browsertest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/play"
)

// TestWalkEveryLesson steps through every lesson with its Next link, as
// a learner does, and measures each page's height at 1280px and 390px;
// it saves a screenshot of the first, middle and last step and of the
// tallest, at both widths, and writes the heights to heights.txt beside
// them.
func TestWalkEveryLesson(t *testing.T) {
	var table strings.Builder
	for _, m := range lessons.Catalog {
		if !lessons.Available(m.Slug) {
			continue
		}
		total := len(play.Parse("lesson=" + m.Slug).Items)
		p := open(t, "/?lesson="+m.Slug) // a browser per lesson: each has 90 s
		p.reducedMotion(true)
		shots := map[int]bool{1: true, (total + 1) / 2: true, total: true}
		tallest, at := 0, 0
		heights := map[int][2]int{}
		for step := 1; step <= total; step++ {
			if step > 1 {
				p.eval(`document.getElementById("next").click(), ""`)
			}
			p.waitText("#pos", fmt.Sprintf("Step %d of %d", step, total))
			var h [2]int
			for i, width := range []int{1280, 390} {
				p.do(chromedp.EmulateViewport(int64(width), 900))
				h[i], _ = strconv.Atoi(p.eval(`String(document.documentElement.scrollHeight)`))
				if shots[step] {
					p.shot(fmt.Sprintf("%s-%02d-%dpx", m.Slug, step, width))
				}
			}
			p.do(chromedp.EmulateViewport(1280, 900))
			heights[step] = h
			fmt.Fprintf(&table, "%s\t%d\t%d\t%d\n", m.Slug, step, h[0], h[1])
			if h[1] > tallest {
				tallest, at = h[1], step
			}
		}
		t.Logf("%s: tallest at 390px is step %d, %d px (%d px at 1280px)", m.Slug, at, tallest, heights[at][0])
	}
	dir := os.Getenv("GREGOR_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "gregor-browser-tests")
	}
	os.WriteFile(filepath.Join(dir, "heights.txt"), []byte(table.String()), 0o644)
}
