package play

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/gregor-kafka/gregor/lessons/classroom/protocol"
)

// serverMsg is a message as server/classroom sends it.
func serverMsg(t *testing.T, v map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeMsg(t *testing.T, b []byte) protocol.In {
	t.Helper()
	var m protocol.In
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return m
}

// TestPositionReplays: every lesson's position, with a What-if and
// another seed, replays as the same page URL; so does the playground's.
func TestPositionReplays(t *testing.T) {
	for _, m := range Index("en") {
		for _, q := range []string{"lesson=" + m.Slug + "&step=2", "lesson=" + m.Slug + "&step=3&seed=9&actions=1:advance+1s,2:fault+drop+response"} {
			s := Parse(q + "&lang=en") // a position carries the page's language
			back := Parse(PositionQuery(s.Position("en")))
			if got, want := back.Query(back.Pos), s.Query(s.Pos); got != want {
				t.Errorf("%s: replays as %q, want %q", q, got, want)
			}
		}
	}
	s := Parse("playground=1&step=2&seed=18446744073709551615&cmds=broker,topic+t+partitions=2")
	back := Parse(PositionQuery(s.Position("")))
	if got, want := back.Query(back.Pos), s.Query(s.Pos); got != want {
		t.Errorf("playground replays as %q, want %q", got, want)
	}
}

// TestAskEveryQuestion: at the step before each lesson question, the
// teacher can ask it, with the choice the script's output shows.
func TestAskEveryQuestion(t *testing.T) {
	for _, m := range Index("en") {
		s := Parse("lesson=" + m.Slug)
		asked := 0
		for pos := 1; pos <= len(s.Items); pos++ {
			s.Pos = pos
			q, correct, ok := s.Ask("zh")
			st := s.Lesson.Steps[min(pos, len(s.Items)-1)]
			if pos == len(s.Items) || st.Question == nil {
				if ok {
					t.Errorf("%s step %d: asks %q, but the next step has no question", m.Slug, pos, q.Prompt)
				}
				continue
			}
			asked++
			if !ok || correct < 0 || correct >= len(q.Choices) || q.Choices[correct] == "" {
				t.Errorf("%s step %d: ask %+v correct %d ok %v", m.Slug, pos, q, correct, ok)
			}
			if tr := st.Question.Translations["zh"]; tr != "" && q.Prompt != tr {
				t.Errorf("%s step %d: the zh prompt is %q", m.Slug, pos, q.Prompt)
			}
		}
		if asked == 0 {
			t.Errorf("%s: no question to ask", m.Slug)
		}
	}
}

// TestStudentFollows: a following student shows every position in order;
// detached it keeps only the newest, and Follow brings it back there.
func TestStudentFollows(t *testing.T) {
	c := NewClass("ABCDE", false)
	c.Opened()
	c.Receive(serverMsg(t, map[string]any{"type": "welcome", "room": "ABCDE", "role": "student"}))
	pos := func(seq, step int) []byte {
		return serverMsg(t, map[string]any{"type": "position", "seq": seq, "position": map[string]any{"lesson": "segments", "step": step}})
	}
	for seq := 1; seq <= 3; seq++ {
		p, err := c.Receive(pos(seq, seq+1))
		if err != nil || p == nil || p.Step != seq+1 {
			t.Fatalf("position %d: %+v %v", seq, p, err)
		}
	}
	if p, _ := c.Receive(pos(3, 4)); p != nil {
		t.Errorf("a repeated position (a reconnect's first message) is shown again")
	}
	if m := decodeMsg(t, c.Detach()); m.Type != "follow" || m.Following == nil || *m.Following {
		t.Errorf("detach sends %+v", m)
	}
	if c.Detach() != nil {
		t.Errorf("detaching twice sends twice")
	}
	for seq := 4; seq <= 5; seq++ {
		if p, _ := c.Receive(pos(seq, seq+1)); p != nil {
			t.Errorf("a detached student is moved to step %d", p.Step)
		}
	}
	if m := decodeMsg(t, c.Opened()); m.Type != "follow" || *m.Following {
		t.Errorf("a detached student reconnecting tells the server %+v", m)
	}
	msg, p := c.Follow()
	if m := decodeMsg(t, msg); m.Type != "follow" || !*m.Following || p == nil || p.Step != 6 {
		t.Errorf("follow: %+v, back to %+v (want step 6)", m, p)
	}
	if c.Sync(Position{Step: 1}) != nil {
		t.Errorf("a student sent a position")
	}
	if c.Opened() != nil {
		t.Errorf("a following student reconnecting sends something first")
	}
	d := NewClass("ABCDE", false)
	d.Detached()
	if p, _ := d.Receive(pos(7, 3)); p != nil || d.Opened() == nil {
		t.Errorf("a student that starts detached follows")
	}
}

// TestTeacherQuestion: ask, the tally, the reveal, and the next position
// clears it; the teacher sends a position only when it changed.
func TestTeacherQuestion(t *testing.T) {
	c := NewClass("ABCDE", true)
	if c.Sync(Position{Step: 1}) != nil {
		t.Errorf("sent a position before the socket opened")
	}
	c.Opened()
	if m := decodeMsg(t, c.Sync(Position{Lesson: "segments", Step: 1})); m.Type != "position" || m.Position.Step != 1 {
		t.Errorf("position message %+v", m)
	}
	if c.Sync(Position{Lesson: "segments", Step: 1}) != nil {
		t.Errorf("the same position sent twice")
	}
	c.Opened() // a reconnect
	if c.Sync(Position{Lesson: "segments", Step: 1}) == nil {
		t.Errorf("a reconnected teacher does not send its position")
	}
	q := Question{ID: "segments.8", Prompt: "which?", Choices: []string{"a", "b", "c"}}
	if m := decodeMsg(t, c.AskQuestion(q, 2)); m.Type != "ask" || m.Question.ID != q.ID {
		t.Errorf("ask message %+v", m)
	}
	c.Receive(serverMsg(t, map[string]any{"type": "tally", "id": q.ID, "counts": []int{1, 0, 3}, "answered": 4}))
	v := c.View("http://x/join/ABCDE", &q)
	if v.CanAsk != "" || v.Question == nil || fmt.Sprint(v.Question.Counts) != "[1 0 3]" || v.Question.Answered != 4 || v.Question.Revealed {
		t.Errorf("teacher's view after the tally: %+v %+v", v, v.Question)
	}
	if m := decodeMsg(t, c.Reveal()); m.Type != "reveal" || m.ID != q.ID || *m.Correct != 2 {
		t.Errorf("reveal message %+v", m)
	}
	c.Receive(serverMsg(t, map[string]any{"type": "reveal", "id": q.ID, "counts": []int{1, 0, 3}, "correct": 2}))
	if v := c.View("", nil); !v.Question.Revealed || v.Question.Correct != 2 || c.Reveal() != nil {
		t.Errorf("after the reveal: %+v", v.Question)
	}
	c.Sync(Position{Lesson: "segments", Step: 2})
	if v := c.View("", nil); v.Question != nil {
		t.Errorf("the revealed question outlived the next step")
	}
}

// TestStudentAnswers: a student answers the open question only, once
// revealed no more.
func TestStudentAnswers(t *testing.T) {
	c := NewClass("ABCDE", false)
	if c.Answer(0) != nil {
		t.Errorf("answered with no question open")
	}
	c.Receive(serverMsg(t, map[string]any{"type": "ask", "question": map[string]any{"id": "q1", "prompt": "?", "choices": []string{"a", "b"}}}))
	if c.Answer(2) != nil {
		t.Errorf("answered a choice out of range")
	}
	if m := decodeMsg(t, c.Answer(1)); m.Type != "answer" || m.ID != "q1" || *m.Choice != 1 {
		t.Errorf("answer message %+v", m)
	}
	if v := c.View("", nil); v.Question.Mine != 1 || v.Question.Counts[1] != 0 {
		t.Errorf("a student sees %+v before the reveal", v.Question)
	}
	c.Receive(serverMsg(t, map[string]any{"type": "reveal", "id": "q1", "counts": []int{4, 1}}))
	if v := c.View("", nil); !v.Question.Revealed || v.Question.Correct != -1 || v.Question.Answered != 5 || c.Answer(0) != nil {
		t.Errorf("after a reveal without a right choice: %+v", v.Question)
	}
}
