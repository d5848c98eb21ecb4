package play

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// firstQuestion is the script index of a lesson's first question, -1 if
// it asks none (or is not written yet).
func firstQuestion(t *testing.T, slug string) (*lessons.Lesson, int) {
	t.Helper()
	l, err := lessons.Load(slug)
	if err != nil {
		return nil, -1
	}
	for k, st := range l.Steps {
		if st.Question != nil {
			return l, k
		}
	}
	return l, -1
}

// mustQuestion is firstQuestion of a lesson that must ask one.
func mustQuestion(t *testing.T, slug string) (*lessons.Lesson, int) {
	t.Helper()
	l, k := firstQuestion(t, slug)
	if k < 0 {
		t.Fatalf("%s asks no question", slug)
	}
	return l, k
}

// TestPredictMode: a question step without an answer shows the command and
// the question over the world before it, and nothing of what the step did:
// no output, narration or messages, and no field that decides the answer.
func TestPredictMode(t *testing.T) {
	asked := 0
	for _, m := range lessons.Catalog {
		l, k := firstQuestion(t, m.Slug)
		if k < 0 {
			continue
		}
		asked++
		q := l.Steps[k].Question
		s := Parse(fmt.Sprintf("lesson=%s&step=%d", m.Slug, k+1))
		p := s.Page()
		if !p.Predict || !s.Predicting() {
			t.Fatalf("%s step %d: not in predict mode", m.Slug, k+1)
		}
		if st := p.Step; len(st.Lines) > 0 || len(st.Narration) > 0 || len(st.Exchanges) > 0 || st.Question == nil || st.Command != l.Steps[k].Command {
			t.Errorf("%s step %d gives the step away: %+v", m.Slug, k+1, st)
		}
		prev := Parse(fmt.Sprintf("lesson=%s&step=%d", m.Slug, k))
		prev.Answers = map[int]int{k - 1: ui.Shown} // revealed, if it asks too
		prevPage := prev.Page()
		before := prevPage.State
		if k == 0 {
			before = new(Timeline).Start()
		}
		if !reflect.DeepEqual(p.State, before) {
			t.Errorf("%s step %d: predict mode does not show the state before the step", m.Slug, k+1)
		}
		page := html(t, p)
		step := page[strings.Index(page, `<article class="step"`):]
		step = step[:strings.Index(step, "</article>")]
		decided := strings.Replace(q.Field, "{}", q.Choices[q.Answer(l.Steps[k].Output)], 1)
		// The field may show from earlier steps, never more often than
		// on the step before.
		if n, was := strings.Count(page, decided), strings.Count(html(t, prevPage), decided); strings.Contains(step, decided) || k > 0 && n > was {
			t.Errorf("%s step %d in predict mode shows %q (%d times, the step before %d)", m.Slug, k+1, decided, n, was)
		}
		for _, leak := range []string{`class="output"`, "On the wire", "Printed", `class="narration"`} {
			if strings.Contains(step, leak) {
				t.Errorf("%s step %d in predict mode shows %q", m.Slug, k+1, leak)
			}
		}
		for i, c := range q.Choices {
			if want := fmt.Sprintf(`data-answer="%d"><code>%s</code>`, i, c); !strings.Contains(page, want) {
				t.Errorf("%s step %d: no button for choice %q", m.Slug, k+1, c)
			}
		}
		if !strings.Contains(page, fmt.Sprintf("Before step %d", k+1)) || !strings.Contains(page, `data-answer="-1"`) {
			t.Errorf("%s step %d: no 'Before step' heading or Show me button", m.Slug, k+1)
		}
		if p.NextHref == "" {
			t.Errorf("%s step %d: no Next from an unanswered question", m.Slug, k+1)
		}
		if strings.Contains(page, `class="inject"`) {
			t.Errorf("%s step %d: predict mode offers What if and faults", m.Slug, k+1)
		}
	}
	if asked < 3 {
		t.Fatalf("only %d lessons ask a question", asked)
	}
}

// TestAnsweredMode: an answer in the URL reveals the step, marked right or
// wrong, with the field that decided it and the narration.
func TestAnsweredMode(t *testing.T) {
	l, k := mustQuestion(t, "idempotent-producer")
	q := l.Steps[k].Question
	right := q.Answer(l.Steps[k].Output)
	wrong := (right + 1) % len(q.Choices)
	decided := strings.Replace(q.Field, "{}", q.Choices[right], 1)
	for _, tc := range []struct {
		chosen        int
		verdict, mark string
	}{
		{right, `class="verdict right"`, fmt.Sprintf(`<li class="choice answer chosen"><code>%s</code> <span class="mark">✓ your answer, right</span>`, q.Choices[right])},
		{wrong, `class="verdict wrong"`, fmt.Sprintf(`<li class="choice chosen"><code>%s</code> <span class="mark">✗ your answer</span>`, q.Choices[wrong])},
		{ui.Shown, `class="verdict shown"`, fmt.Sprintf(`<li class="choice answer"><code>%s</code> <span class="mark">✓ the answer</span>`, q.Choices[right])},
	} {
		s := Parse(fmt.Sprintf("lesson=idempotent-producer&step=%d", k+1))
		s.Answer(tc.chosen)
		if s.Predicting() {
			t.Fatalf("answer %d: still predicting", tc.chosen)
		}
		again := Parse(s.Query(s.Pos)) // the answer is in the URL
		p := again.Page()
		if p.Predict || p.Step.Chosen != tc.chosen || len(p.Step.Lines) == 0 || len(p.Step.Narration) == 0 {
			t.Fatalf("answer %d via %s: not revealed: %+v", tc.chosen, s.Href(s.Pos), p.Step)
		}
		page := html(t, p)
		for _, want := range []string{tc.verdict, tc.mark, `<code class="field">` + decided + `</code>`, `class="output"`, fmt.Sprintf("After step %d", k+1)} {
			if !strings.Contains(page, want) {
				t.Errorf("answer %d: the page lacks %s", tc.chosen, want)
			}
		}
		if strings.Contains(page, "data-answer") {
			t.Errorf("answer %d: the choices are still buttons", tc.chosen)
		}
	}
}

// TestAnswersURL: answers are kept by script step, so the learner's own
// steps do not move them; bad ones are refused; links keep them and the
// language.
func TestAnswersURL(t *testing.T) {
	l, k := mustQuestion(t, "idempotent-producer")
	s := Parse(fmt.Sprintf("lesson=idempotent-producer&step=%d&answers=%d:1&lang=zh", k+1, k+1))
	if s.Err != "" || s.Answers[k] != 0 || s.Lang != "zh" {
		t.Fatalf("parsed %+v", s)
	}
	s.Pos = 1
	s.Insert("advance 1s")
	again := Parse(s.Query(k + 2))
	if again.Answers[k] != 0 || again.Predicting() || again.Items[k+1].Script != k {
		t.Errorf("after a learner's step, %s lost the answer", s.Href(k+2))
	}
	for _, link := range []string{again.Page().PrevHref, again.Page().NextHref, again.Page().ResetHref} {
		if !strings.Contains(link, fmt.Sprintf("answers=%d:1", k+1)) || !strings.HasPrefix(link, "zh/") {
			t.Errorf("link %s drops the answers or the language", link)
		}
	}
	for _, bad := range []string{"1:1", fmt.Sprintf("%d:9", k+1), "x:1", fmt.Sprintf("%d:-2", k+1), "999:1"} {
		if l.Steps[0].Question != nil && bad == "1:1" {
			continue
		}
		if s := Parse("lesson=idempotent-producer&answers=" + bad); s.Err == "" {
			t.Errorf("answers=%s accepted", bad)
		}
	}
}

// TestLanguage: lang=zh gives the Chinese narration, question, heading,
// recap and UI words; the switch links keep the step; English is the
// default.
func TestLanguage(t *testing.T) {
	l, k := mustQuestion(t, "idempotent-producer")
	zh := Parse(fmt.Sprintf("lesson=idempotent-producer&step=%d&answers=%d:0&lang=zh", k+1, k+1)).Page()
	page := html(t, zh) // without InLang the UI words stay English: LessonView adds it
	c, _ := LessonView(zh)
	var sb strings.Builder
	if err := c.Render(t.Context(), &sb); err != nil {
		t.Fatal(err)
	}
	zhPage := sb.String()
	for _, want := range []string{
		ui.Paragraphs(l.Steps[k].Translations["zh"])[0], l.Steps[k].Question.Translations["zh"], l.Headings["zh"].Title,
		fmt.Sprintf("第 %d 步，共 %d 步", k+1, len(l.Steps)), "下一步 →", "答案", "线上的消息",
	} {
		if !strings.Contains(zhPage, want) {
			t.Errorf("the Chinese page lacks %q", want)
		}
	}
	if strings.Contains(zhPage, "Next →") || strings.Contains(zhPage, ui.Paragraphs(l.Steps[k].Narration)[0]) {
		t.Error("the Chinese page has English words or narration")
	}
	if !strings.Contains(page, "Next →") {
		t.Error("a page rendered without InLang is not English")
	}
	if len(zh.LangLinks) != 2 || !zh.LangLinks[1].Current || zh.LangLinks[0].Href != fmt.Sprintf("en/idempotent-producer/%d/?answers=%d:0", k+1, k+1) {
		t.Errorf("language switch: %+v", zh.LangLinks)
	}
	last := Parse("lesson=idempotent-producer&step=999&lang=zh")
	last.Answers = map[int]int{len(l.Steps) - 1: ui.Shown}
	if p := last.Page(); p.Trailer != l.TrailerTranslations["zh"] {
		t.Errorf("the Chinese recap is %q", p.Trailer)
	}
	if en := Parse("lesson=idempotent-producer").Page(); en.Lang != "en" || en.Title != l.Title {
		t.Errorf("default page: lang %q title %q", en.Lang, en.Title)
	}
	if items := Index("zh"); items[0].Title != lessons.Catalog[0].Headings["zh"].Title || items[0].Href != "zh/"+lessons.Catalog[0].Slug+"/" {
		t.Errorf("the Chinese lesson list: %+v", items[0])
	}
	if got := WithLang("lesson=segments", "zh"); got != "lesson=segments&lang=zh" {
		t.Errorf("WithLang = %q", got)
	}
	if got := WithLang("lesson=segments&lang=en", "zh"); got != "lesson=segments&lang=en" {
		t.Errorf("WithLang overrode the URL's lang: %q", got)
	}
}
