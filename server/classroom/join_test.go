package classroom

import (
	"encoding/json"
	"github.com/gregor-kafka/gregor/lessons/classroom/protocol"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/lessons/play"
)

// TestJoinPage: /join/CODE serves the page for its query, marked with the
// room, with asset paths that resolve from /join/.
func TestJoinPage(t *testing.T) {
	var asked string
	c := newClass(t, Config{Page: func(q string) []byte {
		asked = q
		return []byte(`<html lang="en"><script src="assets/wasm_exec.js"></script><script>fetch("assets/" + b)</script></html>`)
	}})
	code, _ := c.open()
	resp, err := http.Get(c.srv.URL + "/join/" + code + "?lesson=segments&step=3")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	page := string(body)
	if asked != "lesson=segments&step=3" {
		t.Errorf("the page was rendered for %q, want the join URL's query", asked)
	}
	for _, want := range []string{`<html data-room="` + code + `" lang="en">`, `src="/assets/wasm_exec.js"`, `fetch("/assets/" + b)`} {
		if !strings.Contains(page, want) {
			t.Errorf("the join page lacks %s:\n%s", want, page)
		}
	}
}

// TestPageMessages: what the page sends (lessons/play.Class) is what the
// server reads, and valid; and a position replays as the page's URL.
func TestPageMessages(t *testing.T) {
	s := play.Parse("lesson=segments&step=5&seed=7&actions=3:advance+1s&lang=zh")
	p := s.Position("zh")
	teacher := play.NewClass("ABCDE", true)
	teacher.Opened()
	var in protocol.In
	if err := json.Unmarshal(teacher.Sync(p), &in); err != nil || in.Type != protocol.TypePosition || in.Position == nil {
		t.Fatalf("position message: %+v, %v", in, err)
	}
	if err := in.Position.Validate(); err != nil {
		t.Errorf("the page's position is refused: %v", err)
	}
	if want := (protocol.Position{Lesson: "segments", Seed: 7, Actions: "3:advance+1s", Step: 5, Lang: "zh"}); *in.Position != want {
		t.Errorf("position %+v, want %+v", *in.Position, want)
	}
	back := play.Parse(play.PositionQuery(p))
	if back.Query(back.Pos) != s.Query(s.Pos) {
		t.Errorf("the position replays as %q, want %q", back.Query(back.Pos), s.Query(s.Pos))
	}
	q, correct, ok := play.Parse("lesson=segments").Ask("en")
	for i := 1; !ok && i < len(s.Items); i++ {
		q, correct, ok = play.Parse("lesson=segments&step=" + strconv.Itoa(i)).Ask("en")
	}
	if !ok {
		t.Fatal("no step of segments has a question")
	}
	in = protocol.In{}
	if err := json.Unmarshal(teacher.AskQuestion(q, correct), &in); err != nil || in.Question == nil {
		t.Fatalf("ask message: %+v, %v", in, err)
	}
	if err := in.Question.Validate(); err != nil {
		t.Errorf("the page's question is refused: %v", err)
	}
	in = protocol.In{}
	if err := json.Unmarshal(teacher.Reveal(), &in); err != nil || in.Type != protocol.TypeReveal || in.ID != q.ID || in.Correct == nil || *in.Correct != correct {
		t.Errorf("reveal message: %+v, %v (want id %s, correct %d)", in, err, q.ID, correct)
	}
}
