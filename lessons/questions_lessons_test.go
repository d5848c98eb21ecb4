package lessons

import "testing"

// TestQuestions: every lesson asks the learner at least two predictions,
// each in English and in every language of the lessons, naming the output
// field that decides it and offering 2 to 4 choices of which exactly one
// is what the step's golden output shows.
func TestQuestions(t *testing.T) {
	for _, l := range written(t) {
		m := l.Meta
		n := 0
		for _, st := range l.Steps {
			q := st.Question
			if q == nil {
				continue
			}
			n++
			if q.Text == "" {
				t.Errorf("%s line %d: a question without English text", m.Slug, st.Line)
			}
			for _, lang := range languages {
				if err := translated(q.Text, q.Translations[lang], lang); err != "" {
					t.Errorf("%s line %d: the [%s] question %s", m.Slug, st.Line, lang, err)
				}
			}
			if q.Field == "" {
				t.Errorf("%s line %d: a question without a #= field", m.Slug, st.Line)
			}
			if c := len(q.Choices); c < 2 || c > 4 {
				t.Errorf("%s line %d: %d choices, want 2 to 4", m.Slug, st.Line, c)
			}
			if q.Answer(st.Output) < 0 {
				t.Errorf("%s line %d: not exactly one of %q shows as %q in the output of %q:\n%s",
					m.Slug, st.Line, q.Choices, q.Field, st.Command, st.Output)
			}
		}
		if n < 2 {
			t.Errorf("%s: %d questions, want at least 2", m.Slug, n)
		}
	}
}
