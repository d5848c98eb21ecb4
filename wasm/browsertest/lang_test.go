package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/ui"
)

// browserLanguage makes the browser prefer lang: navigator.language and
// the Accept-Language header.
func (p *page) browserLanguage(lang string) {
	p.t.Helper()
	params := emulation.SetUserAgentOverrideParams{UserAgent: p.eval(`navigator.userAgent`), AcceptLanguage: lang}
	p.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, params)
		return err
	}))
}

// checkLanguage compares the page's language, narration and own words
// with the native page of its URL, in that URL's language.
func (p *page) checkLanguage(lang string) {
	p.t.Helper()
	where := p.search()
	s, pos := p.native()
	if s.Lang != lang {
		p.t.Fatalf("%s: the URL's language is %q, want %q", where, s.Lang, lang)
	}
	want := s.Page()
	p.waitText("#pos", ui.Trf(lang, "Step %d of %d", pos, want.Total))
	state := "After step %d"
	if want.Predict {
		state = "Before step %d"
	}
	words := map[string]string{"#next": "Next →", ".steplist h2": "Steps", ".state h2": state, "#play": "Play"}
	var q query
	for _, sel := range []string{"h1.title", ".step .narration", ".step .output .line", `.langs a[aria-current="true"]`} {
		q.text(sel)
	}
	for sel := range words {
		q.text(sel)
	}
	got := p.read(q)
	if l := p.eval(`document.documentElement.lang`); l != ui.HTMLLang(lang) {
		p.t.Errorf("%s: <html lang=%q>, want %q", where, l, ui.HTMLLang(lang))
	}
	if g := got.texts["h1.title"]; g != want.Title {
		p.t.Errorf("%s: title %q, want %q", where, g, want.Title)
	}
	if len(want.Step.Narration) > 0 {
		if g := got.texts[".step .narration"]; g != want.Step.Narration[0] {
			p.t.Errorf("%s: narration %q, want %q", where, g, want.Step.Narration[0])
		}
	}
	if len(want.Step.Lines) > 0 { // the printed lines stay as the engine prints them
		if g := got.texts[".step .output .line"]; g != strings.Join(strings.Fields(want.Step.Lines[0].Text), " ") {
			p.t.Errorf("%s: the first printed line reads %q, want %q", where, g, want.Step.Lines[0].Text)
		}
	}
	for sel, en := range words {
		w := ui.Tr(lang, en)
		if en == state {
			w = ui.Trf(lang, en, pos)
		}
		if g := got.texts[sel]; !strings.Contains(g, w) {
			p.t.Errorf("%s: %s reads %q, want %q", where, sel, g, w)
		}
	}
	if g := got.texts[`.langs a[aria-current="true"]`]; g != ui.LangNames[lang] {
		p.t.Errorf("%s: the language switch marks %q", where, g)
	}
}

// TestLanguages: lessons open in the URL's language, narration, heading
// and the page's own words alike; the printed lines stay as the engine
// prints them.
func TestLanguages(t *testing.T) {
	t.Parallel()
	type lessonLang struct{ slug, lang string }
	var all []lessonLang // every lesson, in both languages
	for _, slug := range lessonsByBundle() {
		all = append(all, lessonLang{slug, "zh"}, lessonLang{slug, "en"})
	}
	// One tab, from page to page in place (route): the page's language
	// follows the URL's on every move, as it does on a load.
	p := open(t, "/?lesson=segments&step=3&lang=zh")
	for _, tc := range all {
		l, err := lessons.Load(tc.slug)
		if err != nil {
			t.Fatal(err)
		}
		step := len(l.Steps) / 2
		for l.Steps[step-1].Question != nil {
			step++
		}
		p.route(fmt.Sprintf("/?lesson=%s&step=%d&lang=%s", tc.slug, step, tc.lang))
		p.checkLanguage(tc.lang)
		p.shotView(tc.slug + "-" + tc.lang)
		if tc.slug == "transactions" {
			p.shot("zh-1280")
			p.do(chromedp.EmulateViewport(390, 844))
			p.shot("zh-390")
			if w := p.eval(`String(document.documentElement.scrollWidth)`); w != "390" {
				t.Errorf("the Chinese page is %s px wide at 390", w)
			}
			p.do(chromedp.EmulateViewport(1280, 900))
		}
	}
	// The sequence view's headings and the folded cards' summaries too.
	p.route("/?lesson=coordinator-failover&step=14&lang=zh")
	p.openSequence()
	heads := p.eval(`[...document.querySelectorAll(".seq text.head")].map(e => e.textContent).join("\n")`)
	if !strings.Contains(heads, "第 1 步") || !strings.Contains(heads, "已折叠") {
		t.Errorf("the Chinese sequence view's headings read %q", heads)
	}
	for _, en := range []string{"step ", "background messages", "routes"} {
		if strings.Contains(heads+p.text(".bg-traffic"), en) {
			t.Errorf("the Chinese page's sequence view or folded cards say %q", en)
		}
	}
	// The playground's command reference: synopses as the engine reads
	// them, descriptions in Chinese.
	p.route("/?playground=1&lang=zh")
	for i, u := range sim.Commands() {
		sel := fmt.Sprintf(".reference dl.help dd:nth-of-type(%d)", i+1)
		if got := p.text(sel); got != strings.Join(strings.Fields(ui.Tr("zh", u.Does)), " ") || got == u.Does {
			t.Errorf("the Chinese reference describes %q as %q", u.Synopsis, got)
		}
	}
	p.shot("playground-zh")
	p.route("/?lang=zh")
	if got := p.text("h1"); got != "课程" {
		t.Errorf("the Chinese lesson list's heading is %q", got)
	}
	if got, want := p.text(".lessons li a"), lessons.Catalog[0].Headings["zh"].Title; got != want {
		t.Errorf("the first lesson reads %q, want %q", got, want)
	}
	p.shot("index-zh")
	p.route("/?lesson=nope&lang=zh")
	if got := p.text("h1"); got != "没有这节课" {
		t.Errorf("the Chinese 404 page's heading is %q", got)
	}
}

// TestLanguageSwitch: the switch changes the language and keeps the
// step, the learner's steps and answers.
func TestLanguageSwitch(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=idempotent-producer&step=5&lang=en")
	p.checkLanguage("en")
	p.click(`.langs a[lang="zh-Hans"]`)
	p.waitText("#pos", "第 5 步")
	p.checkLanguage("zh")
	if got := p.search(); !strings.Contains(got, "step=5") || !strings.HasSuffix(got, "lang=zh") {
		t.Errorf("after switching: location.search = %q", got)
	}
	p.click("#next")
	p.waitText("#pos", "第 6 步")
	if got := p.search(); !strings.HasSuffix(got, "lang=zh") {
		t.Errorf("Next dropped the language: %q", got)
	}
	p.shot("switched")
	p.click(`.langs a[lang="en"]`)
	p.waitText("#pos", "Step 6 of")
	p.checkLanguage("en")
}

// TestDefaultLanguage: without lang in the URL, the browser's language
// decides, on the server's first paint and in the wasm, and goes into
// the URL.
func TestDefaultLanguage(t *testing.T) {
	t.Parallel()
	p := open(t, "/?lesson=segments&step=2&lang=en")
	for _, tc := range []struct{ accept, lang, heading string }{{"zh-CN", "zh", "课程"}, {"en-US", "en", "Lessons"}} {
		p.browserLanguage(tc.accept)
		p.load("/")
		if got := p.text("h1"); got != tc.heading {
			t.Errorf("Accept-Language %s: the lesson list's heading is %q", tc.accept, got)
		}
		if got := p.search(); got != "?lang="+tc.lang {
			t.Errorf("Accept-Language %s: location.search = %q", tc.accept, got)
		}
		p.load("/?lesson=segments&step=2")
		p.checkLanguage(tc.lang)
	}
}

// answerQuestion answers the current step's question with choice (or
// ui.Shown) and checks the reveal against the native page of the new URL.
func (p *page) answerQuestion(choice int) {
	p.t.Helper()
	s, pos := p.native()
	if !s.Predicting() {
		p.t.Fatalf("step %d asks nothing", pos)
	}
	pred := s.Page()
	if n := p.count(".step .output") + p.count(".step .narration") + p.count(".exchanges"); n > 0 {
		p.t.Errorf("step %d in predict mode shows %d of its output, narration and messages", pos, n)
	}
	if got, want := p.text(".state h2"), ui.Trf(pred.Lang, "Before step %d", pos); !strings.Contains(got, want) {
		p.t.Errorf("step %d in predict mode: the state panel reads %q", pos, got)
	}
	if got := p.count(".question button.choice"); got != len(pred.Step.Question.Choices) {
		p.t.Errorf("step %d: %d choice buttons, want %d", pos, got, len(pred.Step.Question.Choices))
	}
	p.shot(fmt.Sprintf("predict-%d", pos))
	p.click(fmt.Sprintf(`.question [data-answer="%d"]`, choice))
	p.waitText(".question", ui.Tr(pred.Lang, map[bool]string{true: "Right!", false: "Not quite."}[choice == pred.Step.Question.Answer]))
	s, _ = p.native()
	want := s.Page()
	q := want.Step.Question
	if want.Predict || want.Step.Chosen != choice {
		p.t.Fatalf("the URL %s does not keep the answer", p.search())
	}
	if got := p.text(".question li.answer code"); got != q.Choices[q.Answer] {
		p.t.Errorf("the answer marked is %q, want %q", got, q.Choices[q.Answer])
	}
	if got := p.text(".question li.chosen code"); got != q.Choices[choice] {
		p.t.Errorf("the choice marked as the learner's is %q, want %q", got, q.Choices[choice])
	}
	if got := p.text(".question .decided .field"); got != q.Decided() {
		p.t.Errorf("the deciding field reads %q, want %q", got, q.Decided())
	}
	if got := p.text(".step .narration"); got != want.Step.Narration[0] {
		p.t.Errorf("revealed narration %q, want %q", got, want.Step.Narration[0])
	}
	if p.count(".step .output") == 0 {
		p.t.Error("the revealed step has no output")
	}
	if got := p.eval(`document.activeElement.className`); !strings.Contains(got, "verdict") {
		p.t.Errorf("after answering, the focus is on %q, not the verdict", got)
	}
}

// TestQuestions: a question hides its step until answered, one right and
// one wrong answer are marked so, the answers stay in the URL (a reload
// and going back show them answered), and Play stops at a question.
func TestQuestions(t *testing.T) {
	t.Parallel()
	l, err := lessons.Load("idempotent-producer")
	if err != nil {
		t.Fatal(err)
	}
	var qs []int
	for k, st := range l.Steps {
		if st.Question != nil {
			qs = append(qs, k+1)
		}
	}
	p := open(t, fmt.Sprintf("/?lesson=idempotent-producer&step=%d&lang=zh", qs[0]))
	p.checkLanguage("zh")
	right := l.Steps[qs[0]-1].Question.Answer(l.Steps[qs[0]-1].Output)
	p.answerQuestion(right)
	if p.count(".question li.answer.chosen") != 1 || p.count(".question .verdict.right") != 1 {
		t.Error("a right answer is not marked right")
	}
	p.shot("right-1280")
	p.do(chromedp.EmulateViewport(390, 844))
	p.shot("right-390")
	p.do(chromedp.EmulateViewport(1280, 900))

	// The second question, in English, answered wrong.
	p.load(fmt.Sprintf("/?lesson=idempotent-producer&step=%d&lang=en&answers=%d:%d", qs[1], qs[0], right+1))
	q := l.Steps[qs[1]-1].Question
	wrong := (q.Answer(l.Steps[qs[1]-1].Output) + 1) % len(q.Choices)
	p.do(chromedp.EmulateViewport(390, 844))
	p.shot("predict-390")
	p.do(chromedp.EmulateViewport(1280, 900))
	p.answerQuestion(wrong)
	if p.count(".question li.chosen:not(.answer)") != 1 || p.count(".question li.answer:not(.chosen)") != 1 || p.count(".question .verdict.wrong") != 1 {
		t.Error("a wrong answer is not marked wrong beside the right one")
	}
	p.shot("wrong-1280")

	// A reload keeps both answers; so does going back to the first.
	p.load(p.search())
	if p.count(".question .verdict.wrong") != 1 {
		t.Error("after a reload the answer is gone")
	}
	p.eval(fmt.Sprintf(`document.getElementById("jump").value = %d, document.getElementById("jump").dispatchEvent(new Event("change", {bubbles: true})), ""`, qs[0]))
	p.waitText("#pos", fmt.Sprintf("Step %d of", qs[0]))
	if p.count(".question .verdict.right") != 1 {
		t.Error("going back, the first question is not shown answered")
	}

	// Play from before the third question stops there, asking.
	p.load(fmt.Sprintf("/?lesson=idempotent-producer&step=%d&lang=en", qs[2]-2))
	p.do(chromedp.SetValue(chromedp.ID("speed"), "500"))
	p.eval(`document.getElementById("speed").dispatchEvent(new Event("change", {bubbles: true})), ""`)
	p.click("#play")
	p.waitText("#pos", fmt.Sprintf("Step %d of", qs[2]))
	p.waitAttr("#play", "aria-pressed", "false")
	if p.count(".question.open") != 1 {
		t.Errorf("Play stopped at step %d without its question", qs[2])
	}
	// Show me reveals without an answer; Next then goes on.
	p.click(`.question [data-answer="-1"]`)
	p.waitText(".question", "The answer")
	if s, _ := p.native(); s.Answers[qs[2]-1] != ui.Shown {
		t.Errorf("Show me is not in the URL: %s", p.search())
	}
	if p.count(".question li.answer") != 1 || p.count(".question li.chosen") != 0 {
		t.Error("Show me marks a choice as the learner's")
	}
}
