package play

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons"
)

// TestEveryLessonFitsTheBudget replays every lesson with the server's
// budget and holds each to a fourth of it, so that a learner's own steps
// fit too. With -v it prints the measurements ServerBudget is picked from.
func TestEveryLessonFitsTheBudget(t *testing.T) {
	b := ServerBudget
	for _, m := range lessons.Catalog {
		l, err := lessons.Load(m.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if st, ok := l.StartsCluster(); ok && !sim.HasQuorum {
			t.Logf("%s: skipped, line %d %q needs the full build (not -tags noquorum)", m.Slug, st.Line, st.Command)
			continue
		}
		w := sim.New(l.Seed)
		w.SetLimits(b.World)
		for _, st := range l.Steps {
			if _, err := w.Exec(st.Command); errors.Is(err, sim.ErrLimit) {
				t.Fatalf("%s: %q: %v", m.Slug, st.Command, err)
			}
		}
		clock := w.Now() - view.StartTime
		t.Logf("%-30s %3d commands %8d ms simulated %6d work", m.Slug, len(l.Steps), clock, w.Work())
		if len(l.Steps)*4 > b.Commands || clock*4 > b.World.Time || w.Work()*4 > b.World.Work {
			t.Errorf("%s uses more than a fourth of the budget %+v: %d commands, %d ms, %d work", m.Slug, b, len(l.Steps), clock, w.Work())
		}
		if _, _, status := Render("lesson="+m.Slug+"&step=999", b); status != 200 {
			t.Errorf("%s past its end: status %d within the server's budget", m.Slug, status)
		}
	}
}

// TestRenderOverBudget: each limit refuses with 422 and a page naming it,
// while the same URL renders without a budget (the browser's).
func TestRenderOverBudget(t *testing.T) {
	b := Budget{Commands: 20, World: sim.Limits{Work: 2_000, Time: 600_000}}
	for _, tc := range []struct{ query, says string }{
		{"playground=1&cmds=" + strings.Repeat("broker,", 21), "21 steps; the server replays at most 20"},
		{"playground=1&cmds=broker,advance+11m", "may not pass 10m of simulated time"},
		{"playground=1&cmds=advance+5m,advance+5m,advance+1s", "may not pass 10m"},
		{"playground=1&cmds=cluster+3,advance+2m", "more than 2000 units of simulator work"},
		{"lesson=segments&actions=1:advance+2h", "may not pass 10m"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			if !sim.HasQuorum && NeedsQuorum(tc.query) {
				t.Skip("starts a multi-broker world, which needs the full build (not -tags noquorum)")
			}
			comp, title, status := Render(tc.query, b)
			var page bytes.Buffer
			if err := comp.Render(context.Background(), &page); err != nil {
				t.Fatal(err)
			}
			if status != 422 || !strings.Contains(page.String(), tc.says) || !strings.HasPrefix(title, "Too much to replay") {
				t.Errorf("%s: status %d, title %q, page lacks %q:\n%s", tc.query, status, title, tc.says, page.String())
			}
			if _, _, status := Render(tc.query, Budget{}); status != 200 {
				t.Errorf("%s without a budget: status %d", tc.query, status)
			}
		})
	}
	for q, want := range map[string]int{"": 200, "lesson=nope": 404, "playground=1&cmds=broker,advance+9m": 200} {
		if _, _, status := Render(q, b); status != want {
			t.Errorf("%q: status %d, want %d", q, status, want)
		}
	}
}

// TestTimelineOverClears: a timeline that went over its limits recovers
// when the step that did is removed.
func TestTimelineOverClears(t *testing.T) {
	tl := &Timeline{Limits: sim.Limits{Time: 60_000}}
	tl.Run(1, []string{"broker", "advance 2m"}, 2)
	if !errors.Is(tl.Over(), sim.ErrLimit) {
		t.Fatalf("Over = %v after advancing past the limit", tl.Over())
	}
	if steps := tl.Run(1, []string{"broker", "advance 30s"}, 2); tl.Over() != nil || steps[1].Failed {
		t.Fatalf("Over = %v, step %+v after replacing the step", tl.Over(), steps[1])
	}
}
