package play

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// Answer records the learner's answer to the current step's question: a
// choice's index, or ui.Shown ("Show me"). A step without a question, or
// an answer that names no choice, changes nothing.
func (s *Session) Answer(choice int) {
	q, k := s.currentQuestion()
	if q == nil || choice < ui.Shown || choice >= len(q.Choices) {
		return
	}
	if s.Answers == nil {
		s.Answers = map[int]int{}
	}
	s.Answers[k] = choice
}

// Predicting reports whether the current step is a question still to be
// answered: the page shows it in predict mode, and Play stops there.
func (s *Session) Predicting() bool {
	q, k := s.currentQuestion()
	if q == nil {
		return false
	}
	_, answered := s.Answers[k]
	return !answered
}

// currentQuestion is the current step's question and its script index.
func (s *Session) currentQuestion() (*lessons.Question, int) {
	if s.Lesson == nil || s.Err != "" || s.Pos < 1 || s.Pos > len(s.Items) {
		return nil, -1
	}
	k := s.Items[s.Pos-1].Script
	if k < 0 {
		return nil, -1
	}
	return s.Lesson.Steps[k].Question, k
}

// question puts script step k's question into v, answered from out (what
// the step printed in this run).
func (s *Session) question(v *ui.StepView, k int, out string) {
	q := s.Lesson.Steps[k].Question
	if q == nil {
		return
	}
	qv := ui.QuestionView{Text: inLang(q.Text, q.Translations, ui.Lang(s.Lang)), Field: q.Field, Choices: q.Choices, Answer: q.Answer(out)}
	if d := qv.Decided(); d != "" {
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, d) {
				qv.Line = strings.TrimSpace(l)
				break
			}
		}
	}
	v.Question, v.Chosen = &qv, ui.Unanswered
	if c, ok := s.Answers[k]; ok {
		v.Chosen = c
	}
}

// predict turns p into the current step's predict mode: the command and
// the question, over the world as it was before the step (its state, its
// messages and transcript so far); the step's narration, output and
// messages would give the answer away.
func (s *Session) predict(p *ui.Page, t *Timeline, steps []Step, views []ui.StepView) {
	cur := p.Step
	p.Predict = true
	p.Step = &ui.StepView{N: cur.N, Command: cur.Command, Injected: cur.Injected, Question: cur.Question, Chosen: ui.Unanswered}
	p.Transcript = views[:s.Pos-1]
	p.State = t.Start()
	if s.Pos > 1 {
		p.State = steps[s.Pos-2].State
	}
	p.Sequence = s.sequence(steps, p.State, s.Pos-1)
}

// parseAnswers reads the URL's answers (Q:C, see the package doc).
func (s *Session) parseAnswers(entries []string) string {
	for _, e := range entries {
		q, c, ok := strings.Cut(e, ":")
		k, err1 := strconv.Atoi(q)
		n, err2 := strconv.Atoi(c)
		if !ok || err1 != nil || err2 != nil || k < 1 || k > len(s.Lesson.Steps) || s.Lesson.Steps[k-1].Question == nil ||
			n < 0 || n > len(s.Lesson.Steps[k-1].Question.Choices) {
			return fmt.Sprintf("bad answer %q in the URL (want STEP:CHOICE for a step with a question)", e)
		}
		if s.Answers == nil {
			s.Answers = map[int]int{}
		}
		s.Answers[k-1] = n - 1 // 0, "Show me", is ui.Shown
	}
	return ""
}

// answersQuery is the answers' URL value, by script step.
func (s *Session) answersQuery() string {
	var entries []string
	for _, k := range slices.Sorted(maps.Keys(s.Answers)) {
		entries = append(entries, fmt.Sprintf("%d:%d", k+1, s.Answers[k]+1))
	}
	return strings.Join(entries, ",")
}

// hrefIn is a link to the session at its step in another language.
func (s *Session) hrefIn(lang string) string {
	c := *s
	c.Lang = lang
	return c.Href(s.Pos)
}

// inLang is a text in lang when it has a translation there, else the
// English.
func inLang(english string, tr lessons.Translations, lang string) string {
	if t := tr[lang]; t != "" {
		return t
	}
	return english
}

// WithLang is a URL query with lang added when it names none: the
// browser's language (ui.PickLang) for a URL that does not say.
func WithLang(rawQuery, lang string) string {
	if parseQuery(rawQuery).get("lang") != "" {
		return rawQuery
	}
	if rawQuery == "" {
		return "lang=" + ui.Lang(lang)
	}
	return rawQuery + "&lang=" + ui.Lang(lang)
}
