package lessons

import "testing"

func TestQuestionParseAndAnswer(t *testing.T) {
	l, err := Parse(`#!seed: 1

# The retry arrives.
#? Which offset does the broker answer?
#?[zh] broker 回复哪个 offset？
#= base_offset={}
#- 1
#- 2
#- 12
produce p1 t value=a
----
b0 -> p1     Produce t-0 base_offset=12
`)
	if err != nil {
		t.Fatal(err)
	}
	q := l.Steps[0].Question
	if q == nil || q.Text != "Which offset does the broker answer?" || q.Translations["zh"] != "broker 回复哪个 offset？" || q.Field != "base_offset={}" || len(q.Choices) != 3 {
		t.Fatalf("parsed %+v", q)
	}
	if l.Steps[0].Narration != "The retry arrives." {
		t.Fatalf("narration %q", l.Steps[0].Narration)
	}
	if got := q.Answer(l.Steps[0].Output); got != 2 {
		t.Fatalf("answer = %d, want 2 (base_offset=1 must not match base_offset=12)", got)
	}
	if got := q.Answer("base_offset=1 base_offset=2"); got != -1 {
		t.Fatalf("two matching choices gave %d, want -1", got)
	}
	if _, err := Parse("#? dangling\n#= x={}\n#- 1\n"); err == nil {
		t.Fatal("a question after the last command parsed")
	}
	if _, err := Parse("#= no placeholder\nproduce p1 t\n"); err == nil {
		t.Fatal("a field without {} parsed")
	}
	if got := l.Format([]string{l.Steps[0].Output}); got[len("#!seed: 1\n\n"):] != `# The retry arrives.
#? Which offset does the broker answer?
#?[zh] broker 回复哪个 offset？
#= base_offset={}
#- 1
#- 2
#- 12
produce p1 t value=a
----
b0 -> p1     Produce t-0 base_offset=12
` {
		t.Fatalf("format:\n%s", got)
	}
}
