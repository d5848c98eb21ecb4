package play

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// html renders a page as the browser shows it.
func html(t *testing.T, p ui.Page) string {
	t.Helper()
	var sb strings.Builder
	if err := ui.Lesson(p).Render(context.Background(), &sb); err != nil {
		t.Fatal(err)
	}
	return sb.String()
}

// walker steps one session on one kept Timeline, as the browser does, and
// checks every page against a fresh replay of the same URL.
type walker struct {
	t    *testing.T
	tl   Timeline
	s    *Session
	slug string
}

func (w *walker) check(what string) {
	w.t.Helper()
	kept := w.s.PageOn(&w.tl)
	again := Parse(w.s.Query(w.s.Pos))
	again.PastEnd = w.s.PastEnd // not in the URL: a step past the end reads as the last one
	fresh := again.Page()
	at := *w.s
	if kept.Predict {
		at.Pos-- // predict mode shows the world before the step
	}
	if want := replayState(&at); !reflect.DeepEqual(kept.State, want) {
		w.t.Fatalf("%s %s at step %d: the kept state is not the state a replay from the seed reads\n got %+v\nwant %+v", w.slug, what, w.s.Pos, kept.State, want)
	}
	if a, b := html(w.t, kept), html(w.t, fresh); a != b {
		w.t.Fatalf("%s %s at step %d: the kept snapshots render another page than a fresh replay of %s\n%s", w.slug, what, w.s.Pos, w.s.Href(w.s.Pos), firstDifference(a, b))
	}
}

func (w *walker) goTo(pos int, what string) {
	w.t.Helper()
	w.s.Pos, w.s.PastEnd = pos, false
	w.check(what)
}

// replayState is the state after the session's current step, read the
// plain way: replay from the seed, view before and after the step.
func replayState(s *Session) view.World {
	w := sim.New(s.Seed)
	var before view.World
	for i, it := range s.Items[:s.Pos] {
		if i == s.Pos-1 {
			before = w.View()
		}
		lessons.Exec(w, it.Cmd)
	}
	after := w.View()
	if s.Pos > 0 {
		view.MarkChanges(&before, &after)
	}
	return after
}

func firstDifference(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("kept:  …%s…\nfresh: …%s…", a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

// TestTimelineMatchesReplay walks every lesson forward, back, after a
// What-if in the middle and with it removed again: each page built from
// kept snapshots is byte-identical to a fresh replay of its URL.
func TestTimelineMatchesReplay(t *testing.T) {
	for _, m := range lessons.Catalog {
		t.Run(m.Slug, func(t *testing.T) {
			w := &walker{t: t, s: Parse("lesson=" + m.Slug), slug: m.Slug}
			n := len(w.s.Items)
			for pos := 1; pos <= n; pos++ {
				w.goTo(pos, "forward")
			}
			// Back with every question answered, right, wrong or shown.
			for k, st := range w.s.Lesson.Steps {
				if st.Question != nil {
					w.s.Pos = k + 1
					w.s.Answer(k%3 - 1)
				}
			}
			for pos := n - 1; pos >= 1; pos-- {
				w.goTo(pos, "back")
			}
			// What if the first broker crashes halfway through?
			w.goTo(n/2, "back to the middle")
			w.s.Insert("crash b0")
			w.check("after a What-if")
			for pos := n/2 + 2; pos <= n+1; pos++ {
				w.goTo(pos, "forward after a What-if")
			}
			w.goTo(n/2-1, "back after a What-if")
			w.s.Remove(n/2 + 1)
			w.check("with the What-if removed")
			w.goTo(n, "to the end again")
		})
	}
}

// TestTimelineSeed: a new seed starts a new world, whatever was kept.
func TestTimelineSeed(t *testing.T) {
	w := &walker{t: t, s: Parse("lesson=idempotent-producer&step=999"), slug: "idempotent-producer"}
	w.check("seed 1")
	w.s.Seed = 42
	w.check("seed 42")
}

// TestTimelineRunsOnlyNewSteps: stepping forward runs one command, going
// back none; the kept steps are the very same values.
func TestTimelineRunsOnlyNewSteps(t *testing.T) {
	var tl Timeline
	cmds := []string{"broker", "topic t", "producer p", "produce p t partition=0 value=a", "produce p t partition=0 value=b"}
	a := tl.Run(1, cmds, 3)
	events := len(tl.w.Events())
	b := tl.Run(1, cmds, 2)
	if len(tl.w.Events()) != events || &a[0].Lines[0] != &b[0].Lines[0] {
		t.Fatalf("going back ran commands or rebuilt the kept steps")
	}
	tl.Run(1, cmds, 4)
	if tl.ran != 4 || len(tl.w.Events()) == events {
		t.Fatalf("going forward: ran %d commands, want 4", tl.ran)
	}
	// A changed command at 2 keeps steps 0..1 and rebuilds the world.
	w := tl.w
	changed := append([]string{}, cmds...)
	changed[2] = "producer p idempotent"
	c := tl.Run(1, changed, 3)
	if tl.w == w || &c[0].Lines[0] != &a[0].Lines[0] || tl.ran != 3 {
		t.Fatalf("after a change at step 3: same world %v, kept step 1 %v, ran %d", tl.w == w, &c[0].Lines[0] == &a[0].Lines[0], tl.ran)
	}
}
