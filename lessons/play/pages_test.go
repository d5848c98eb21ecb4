package play

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// maxPageBytes bounds a rendered step. Measured on every step of every
// lesson: the largest is assignors' step 35 at about 290 KB (its sequence
// view draws 200 messages twice); before background traffic was folded
// (ui/fold.go), coordinator-failover's step 15 was 436 KB of cards and
// its page 75,000 px tall.
const maxPageBytes = 400_000

// TestEveryStepRenders renders every step of every lesson, as the
// browser steps through it, and holds each page to maxPageBytes; and no
// client's box in the diagram cuts its state short, at either width.
func TestEveryStepRenders(t *testing.T) {
	biggest, where := 0, ""
	for _, m := range lessons.Catalog {
		s := Parse("lesson=" + m.Slug)
		var tl Timeline
		for pos := 1; pos <= len(s.Items); pos++ {
			s.Pos = pos
			p := s.PageOn(&tl)
			at := fmt.Sprintf("%s step %d", m.Slug, pos)
			if n := len(html(t, p)); n > maxPageBytes {
				t.Errorf("%s: the page is %d bytes, more than %d", at, n, maxPageBytes)
			} else if n > biggest {
				biggest, where = n, at
			}
			d := ui.NewDiagram(p.State, p.Step.Exchanges, p.Step.Command)
			for _, l := range []ui.Layout{d.Wide, d.Narrow} {
				for _, n := range l.Nodes {
					if n.Circle() {
						continue
					}
					if text := strings.Join(n.Lines, " / "); strings.Contains(text, "…") {
						t.Errorf("%s, %s diagram: %s's box cuts its state: %q (state %q)", at, l.Class, n.Name, text, n.Detail)
					}
				}
			}
		}
	}
	t.Logf("the largest page: %s, %d bytes", where, biggest)
}
