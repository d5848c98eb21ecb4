package play

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// TestSeedAloneDoesNotDiverge: with another seed, a one-broker lesson
// prints other topic and member ids but nothing else, so no step is
// marked as different from the script; a What-if still is.
func TestSeedAloneDoesNotDiverge(t *testing.T) {
	idsChanged := 0
	for _, m := range lessons.Catalog {
		l, err := lessons.Load(m.Slug)
		if err != nil || NeedsQuorum("lesson="+m.Slug) {
			continue
		}
		seed := l.Seed + 7
		p := Parse(fmt.Sprintf("lesson=%s&step=999&seed=%d", m.Slug, seed)).Page()
		for i, st := range p.Transcript {
			if st.Diverged {
				t.Errorf("%s seed %d: step %d (%s) marked as diverged:\n%v", m.Slug, seed, i+1, st.Command, st.Diff)
			}
			var lines []string
			for _, l := range st.Lines {
				lines = append(lines, l.Text)
			}
			if strings.Join(lines, "\n") != l.Steps[i].Output {
				idsChanged++
			}
		}
	}
	if idsChanged == 0 {
		t.Fatal("no step printed anything else with another seed: the test compares nothing")
	}
	p := Parse("lesson=consumer-groups&step=999&seed=8&actions=3:crash+b0").Page()
	if !slices.ContainsFunc(p.Transcript, func(s ui.StepView) bool { return s.Diverged }) {
		t.Error("crashing the broker early in consumer-groups marks no step as diverged")
	}
}

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"created topic t (id z7HWbJUhtyORc6hE0LpNaQ)", "created topic t (id xB4hHWKOwtjvXtb2_LLd4w)", true},
		{"member=C1-4f721312-9f9d-451b-9aca-f44c09bc8a64 x", "member=C1-741009fa-2c94-46c4-93d6-01da22945742 x", true},
		{"member=C1-4f721312-9f9d-451b-9aca-f44c09bc8a64", "member=C2-741009fa-2c94-46c4-93d6-01da22945742", false},
		{"leo=1 hw=1", "leo=1 hw=0", false},
		{"b0 __share_group_state-28 appended offsets 0..0 (leo=1 hw=1)", "b0 __share_group_state-8 appended offsets 0..0 (leo=1 hw=1)", true},
		{"b0 __share_group_state-28 appended offsets 0..0 (leo=1 hw=1)", "b0 __consumer_offsets-8 appended offsets 0..0 (leo=1 hw=1)", false},
	} {
		if got := SameOutput(tc.a, tc.b); got != tc.same {
			t.Errorf("SameOutput(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// TestScriptSaid: on a step that printed something else than the script,
// the narration is shown as what the script said, not as what happened;
// on a step that printed the same, as it is.
func TestScriptSaid(t *testing.T) {
	s := Parse("lesson=segments&step=6&actions=4:crash+b0")
	p := s.Page()
	if !p.Step.Diverged || len(p.Step.Narration) == 0 {
		t.Fatalf("step 6 after crashing b0: diverged %v, narration %q", p.Step.Diverged, p.Step.Narration)
	}
	if page := html(t, p); !strings.Contains(page, `<div class="script-said"><p class="note">The script said`) {
		t.Errorf("a diverged step's narration is not marked as the script's")
	}
	s.Pos = 2
	if page := html(t, s.Page()); strings.Contains(page, "The script said") {
		t.Errorf("step 2, before the What-if, is marked as the script's")
	}
}
