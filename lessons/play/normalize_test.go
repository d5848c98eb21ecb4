package play

import (
	"fmt"
	"math/rand/v2"
	"regexp"
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

// TestNormalizeIsRegexp: normalize replaces what the regular expressions
// in normalize.go's comments match, on samples and random mixtures of
// their pieces.
func TestNormalizeIsRegexp(t *testing.T) {
	uuidRE := regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)
	shareRE := regexp.MustCompile(`\b__share_group_state-[0-9]+ appended offsets [0-9]+\.\.[0-9]+ \(leo=[0-9]+ hw=[0-9]+\)`)
	topicRE := regexp.MustCompile(`\b(id[ =])[A-Za-z0-9_-]{22}\b`)
	want := func(s string) string {
		s = uuidRE.ReplaceAllString(s, "<uuid>")
		s = shareRE.ReplaceAllString(s, "__share_group_state-<p> appended")
		return topicRE.ReplaceAllString(s, "${1}<topic-id>")
	}
	pieces := []string{
		"4f721312-9f9d-451b-9aca-f44c09bc8a64", "4f721312-9f9d-451b-9aca-f44c09bc8a6", "4F721312-9f9d-451b-9aca-f44c09bc8a64",
		"id ", "id=", "(id ", "xid=", "z7HWbJUhtyORc6hE0LpNaQ", "xB4hHWKOwtjvXtb2_LLd4-", "-", "_", "a", "0", " ", ")", "é",
		"__share_group_state-28 appended offsets 0..0 (leo=1 hw=1)", "__share_group_state-", " appended offsets ", "..", " (leo=", "1", " hw=",
	}
	cases := []string{"", "created topic t (id z7HWbJUhtyORc6hE0LpNaQ)", "member=C1-4f721312-9f9d-451b-9aca-f44c09bc8a64 x"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50000 {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	matched := 0
	for _, s := range cases {
		w := want(s)
		if got := normalize(s); got != w {
			t.Errorf("normalize(%q) = %q, regexp says %q", s, got, w)
		}
		if w != s {
			matched++
		}
	}
	if matched < 1000 {
		t.Fatalf("only %d cases had an id to replace", matched)
	}
}
