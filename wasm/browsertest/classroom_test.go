package browsertest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gregor-kafka/gregor"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/lessons/play"
	"github.com/gregor-kafka/gregor/server"
)

// gregorServe runs the real `gregor serve` in-process, with the browser
// build: the page, the rooms and their sockets behind the same routes and
// access rules as the binary's.
func gregorServe(t *testing.T) (string, *server.Server) {
	t.Helper()
	return gregorServeWith(t, server.Config{})
}

// gregorServeWith is gregorServe with cfg's settings beside the test's
// addresses, data directory and browser build.
func gregorServeWith(t *testing.T, cfg server.Config) (string, *server.Server) {
	t.Helper()
	serve(t, false) // builds the bundles once
	cfg.KafkaAddr, cfg.HTTPAddr, cfg.DataDir = "127.0.0.1:0", "127.0.0.1:0", t.TempDir()
	cfg.Settings, cfg.IndexHTML, cfg.Assets, cfg.Logf = config.NewBroker(), gregor.IndexHTML, assets, func(string, ...any) {}
	srv, err := server.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return "http://" + srv.HTTPAddr().String(), srv
}

// person is one page in a browser context of its own: its own cookies,
// as on its own laptop.
func person(t *testing.T, browserCtx context.Context, base, path string) *page {
	t.Helper()
	return tab(t, browserCtx, base, path)
}

// setStep moves the page to step n with its step slider, as a learner
// dragging it does.
func (p *page) setStep(n int) {
	p.t.Helper()
	p.eval(fmt.Sprintf(`(() => { const r = document.getElementById("jump"); r.value = %d; r.dispatchEvent(new Event("change", {bubbles: true})); return ""; })()`, n))
}

// shows waits until the page shows the lesson's step n, then checks it
// against the native replay of the page's URL, which must be the room's.
func (p *page) shows(code string, n int) {
	p.t.Helper()
	p.waitText("#pos", fmt.Sprintf("Step %d of", n))
	p.checkStep()
	if path := p.eval(`location.pathname`); !strings.EqualFold(path, "/join/"+code) {
		p.t.Errorf("the student's page left the room's address: %s", path)
	}
}

// TestClassroom: a teacher opens a class on a lesson; two students, each
// in a browser of its own, join with the code and follow the teacher's
// steps; one explores on its own and comes back with one click; the
// teacher asks the room the lesson's question, both answer, the teacher
// sees the distribution and reveals it; a late student lands on the
// teacher's step; the class moves on to a lesson of the cluster bundle,
// then to the playground; projector mode folds the side panels.
func TestClassroom(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	base, _ := gregorServe(t)
	bctx := browser(t, exe)
	const slug = "segments"
	lesson := play.Parse("lesson=" + slug)

	teacher := person(t, bctx, base, "/?lesson="+slug)
	teacher.click("[data-room-act=teach]")
	teacher.do(chromedp.WaitVisible(chromedp.CSS(".room-big .code")))
	code := teacher.text(".room-big .code")
	if len(code) != 5 || !strings.Contains(teacher.text(".room-big .joinurl"), "/join/"+code) {
		t.Fatalf("the join overlay shows code %q and link %q", code, teacher.text(".room-big .joinurl"))
	}
	teacher.shot("teacher-join")
	if c := teacher.eval(`document.cookie + " " + location.href + " " + document.body.innerHTML`); strings.Contains(c, "gregor_teacher") {
		t.Errorf("the teacher's token is visible to the page: %s", c)
	}
	teacher.click(".room-big [data-room-act=big]")

	s1 := person(t, bctx, base, "/join/"+code)
	s2 := person(t, bctx, base, "/join/"+strings.ToLower(code))
	for _, s := range []*page{s1, s2} {
		s.waitText("#room-follow", "Following the teacher")
		s.shows(code, 1)
	}
	teacher.waitText("#room-counts", "2 connected · 2 following")

	// The students follow every step.
	for _, n := range []int{2, 3} {
		teacher.click("#next")
		teacher.waitText("#pos", fmt.Sprintf("Step %d of", n))
		s1.shows(code, n)
		s2.shows(code, n)
	}

	// s2 explores on its own, then comes back with one click.
	s2.click("[data-room-act=detach]")
	teacher.waitText("#room-counts", "2 connected · 1 following")
	s2.click("#prev")
	s2.waitText("#pos", "Step 2 of")
	teacher.setStep(4)
	s1.shows(code, 4)
	if got := s2.text("#pos"); !strings.HasPrefix(got, "Step 2 of") {
		t.Errorf("the student exploring on its own was moved: it shows %q", got)
	}
	s2.shot("student-away")
	s2.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("html[data-ready] #app > *")))
	s2.waitText("#room-follow", "Exploring on your own") // a reload does not bring it back
	s2.shows(code, 2)
	teacher.waitText("#room-counts", "2 connected · 1 following")
	s2.click("[data-room-act=follow]")
	s2.shows(code, 4)
	teacher.waitText("#room-counts", "2 connected · 2 following")

	// A question: at the step before the lesson's first question.
	ask := 0
	for i := 1; i < len(lesson.Items); i++ {
		if _, _, ok := play.Parse(fmt.Sprintf("lesson=%s&step=%d", slug, i)).Ask("en"); ok {
			ask = i
			break
		}
	}
	if ask == 0 {
		t.Fatalf("lesson %s asks no question", slug)
	}
	q, correct, _ := play.Parse(fmt.Sprintf("lesson=%s&step=%d", slug, ask)).Ask("en")
	if correct < 0 {
		t.Fatalf("the script's output answers none of %q's choices", q.Prompt)
	}
	wrong := (correct + 1) % len(q.Choices)
	teacher.setStep(ask)
	s1.shows(code, ask)
	teacher.click("[data-room-act=ask]")
	for _, s := range []*page{s1, s2} {
		s.waitText("#room-q .q-prompt", q.Prompt)
	}
	s1.click(fmt.Sprintf("#room-q [data-choice='%d']", correct))
	s2.click(fmt.Sprintf("#room-q [data-choice='%d']", wrong))
	teacher.waitText("#room-answered", "2")
	s1.waitText("#room-q", "Your answer is in")
	teacher.shot("teacher-question")
	teacher.click("[data-room-act=reveal]")
	for _, s := range []*page{teacher, s1, s2} {
		s.waitText("#room-q li.correct .verdict", "right")
		if got := s.text("#room-q li.correct"); !strings.HasPrefix(got, q.Choices[correct]) {
			t.Errorf("the choice marked right reads %q, want %q", got, q.Choices[correct])
		}
		if got := s.text(fmt.Sprintf("#room-q li:nth-child(%d) .n", wrong+1)); got != "1" {
			t.Errorf("after the reveal choice %q counts %q, want 1", q.Choices[wrong], got)
		}
	}
	if s2.count("#room-q li.mine.correct") != 0 || s1.count("#room-q li.mine.correct") != 1 {
		t.Errorf("the students' own answers are not marked right and wrong as they answered")
	}
	s1.shot("student-revealed")
	s2.do(chromedp.EmulateViewport(390, 844)) // a phone
	if over := s2.eval(`String(document.documentElement.scrollWidth - document.documentElement.clientWidth)`); over != "0" {
		t.Errorf("at 390 px a student's page scrolls %s px sideways", over)
	}
	s2.shot("student-phone")

	// A late student lands on the teacher's step.
	late := person(t, bctx, base, "/join/"+code)
	late.shows(code, ask)
	teacher.waitText("#room-counts", "3 connected · 3 following")

	// The teacher opens a three-broker lesson: a new page load, which
	// rejoins the room as its teacher (the cookie, and the code kept in
	// the tab); the students' pages switch to the cluster bundle in place
	// and rejoin as students.
	teacher.load("/?lesson=replication&step=2")
	teacher.waitText("#room-counts", "3 connected · 3 following")
	for _, s := range []*page{s1, s2, late} {
		s.waitText("#pos", "Step 2 of")
		s.checkStep()
		if b := s.eval(`window.gregorBundle`); b != play.ClusterBundle {
			t.Errorf("a student's page runs the replication lesson on %s", b)
		}
	}
	teacher.click("#next")
	s2.shows(code, 3)

	// The playground: the teacher's commands replay on the students' pages.
	teacher.load("/?playground=1")
	teacher.do(chromedp.SendKeys(chromedp.CSS("#cmd"), "broker\n"))
	teacher.waitText("#pos", "Step 1 of 1")
	for _, s := range []*page{s1, late} {
		s.waitText("#pos", "Step 1 of 1")
		s.waitText(".step pre.command", "broker")
		s.checkStep()
	}
	if got := s1.eval(`location.search`); !strings.Contains(got, "playground=1") || !strings.Contains(got, "cmds=broker") {
		t.Errorf("a student's page follows the playground at %s", got)
	}

	// Projector mode: large type, the side panels folded.
	teacher.click("[data-room-act=projector]")
	if teacher.eval(`getComputedStyle(document.querySelector(".steplist")).display + " " + getComputedStyle(document.querySelector(".state")).display`) != "none none" {
		t.Errorf("projector mode shows the side panels")
	}
	if fs := teacher.eval(`getComputedStyle(document.body).fontSize`); fs != "21px" {
		t.Errorf("projector mode's type is %s", fs)
	}
	teacher.shot("projector")

	// The teacher switches to Chinese: the students follow, and their
	// class bar speaks it too.
	teacher.load("/?playground=1&cmds=broker&lang=zh")
	teacher.waitText("#room-counts", "已连接")
	s1.waitText("#room-follow", "正在跟随老师")
	s1.shot("student-zh")
}
