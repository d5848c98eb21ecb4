package play

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gregor-kafka/gregor/ui"
)

// A class is a room of server/classroom seen from one page: the teacher's,
// which sends its Position on every change, or a student's, which follows
// the teacher's positions or explores on its own. Class is that page's
// side of the protocol (server/classroom/protocol.go), pure so that it is
// tested natively; wasm/room.go only carries its messages over the
// browser's WebSocket.
//
// # Invariants
//
//   - A following student applies every position it receives, in the
//     order received; a detached one only keeps the newest, and applies it
//     when it follows again (Follow), so one click brings it back.
//   - The teacher sends a position only when it differs from the last one
//     the server acknowledged on this socket (a reconnect sends it again).
//   - A student's answer is its own until the teacher reveals; the reveal
//     shows everyone the counts and, when the script knows it, the right
//     choice, until the teacher's next position.

// Position is where the teacher is: the URL parameters that replay the
// page (classroom.Position on the wire).
type Position struct {
	Lesson  string `json:"lesson,omitempty"`
	Seed    int64  `json:"seed,omitempty"` // the world's seed, bit for bit (uint64 in the URL)
	Actions string `json:"actions,omitempty"`
	Step    int    `json:"step"`
	Lang    string `json:"lang,omitempty"`
	Cmds    string `json:"cmds,omitempty"`
}

// Position is the session's current position, with the page's language.
func (s *Session) Position(lang string) Position {
	q := parseQuery(s.Query(s.Pos))
	p := Position{Seed: int64(s.Seed), Step: s.Pos, Lang: lang, Actions: q["actions"], Cmds: q["cmds"]}
	if s.Lesson != nil {
		p.Lesson = s.Lesson.Slug
	}
	return p
}

// Query is the URL query that replays the position (Parse reads it).
func (p Position) Query() string {
	q := "playground=1"
	if p.Lesson != "" {
		q = "lesson=" + p.Lesson
	}
	q += "&step=" + strconv.Itoa(p.Step) + "&seed=" + strconv.FormatUint(uint64(p.Seed), 10)
	if p.Lesson != "" && p.Actions != "" {
		q += "&actions=" + p.Actions
	}
	if p.Lesson == "" && p.Cmds != "" {
		q += "&cmds=" + p.Cmds
	}
	if p.Lang != "" {
		q += "&lang=" + p.Lang
	}
	return q
}

// Question is a multiple-choice question asked of the room
// (classroom.Question on the wire).
type Question struct {
	ID      string   `json:"id"`
	Prompt  string   `json:"prompt,omitempty"`
	Choices []string `json:"choices"`
}

// Ask is the question the teacher can ask at the session's position: the
// one the lesson asks before its next script step runs (lessons.Question),
// in lang when translated, with the choice the script's output shows.
// ok is false where the next step asks nothing.
func (s *Session) Ask(lang string) (q Question, correct int, ok bool) {
	if s.Lesson == nil || s.Pos >= len(s.Items) || s.Items[s.Pos].Script < 0 {
		return Question{}, 0, false
	}
	k := s.Items[s.Pos].Script
	st := s.Lesson.Steps[k]
	if st.Question == nil {
		return Question{}, 0, false
	}
	prompt := st.Question.Text
	if tr := st.Question.Translations[lang]; tr != "" {
		prompt = tr
	}
	id := fmt.Sprintf("%s.%d", s.Lesson.Slug, k+1)
	return Question{ID: id, Prompt: prompt, Choices: st.Question.Choices}, st.Question.Answer(st.Output), true
}

// classMsg is what a page sends: the teacher position, ask and reveal, a
// student follow and answer (classroom.In).
type classMsg struct {
	Type      string    `json:"type"`
	Position  *Position `json:"position,omitempty"`
	Question  *Question `json:"question,omitempty"`
	ID        string    `json:"id,omitempty"`
	Correct   *int      `json:"correct,omitempty"`
	Following *bool     `json:"following,omitempty"`
	Choice    *int      `json:"choice,omitempty"`
}

// classEvent is any message the server sends; its type says which fields
// count (classroom's Welcome, PositionOut, AskOut, Tally, RevealOut,
// Roster).
type classEvent struct {
	Type      string    `json:"type"`
	Role      string    `json:"role"`
	Seq       uint64    `json:"seq"`
	Position  *Position `json:"position"`
	Question  *Question `json:"question"`
	ID        string    `json:"id"`
	Counts    []int     `json:"counts"`
	Answered  int       `json:"answered"`
	Correct   *int      `json:"correct"`
	Connected int       `json:"connected"`
	Following int       `json:"following"`
}

// Class is one page's membership of a room.
type Class struct {
	Code    string
	Teacher bool
	// Status says how the socket stands: "connecting", "connected", or
	// why it closed.
	Status string
	Closed bool

	following  bool
	sent       *Position // the teacher's last position sent on this socket
	latest     *Position // a student's newest position from the teacher
	seq        uint64
	connected  int
	followers  int
	question   *Question
	correct    int // the script's answer to the open question, for the teacher's reveal
	counts     []int
	answered   int
	mine       int // this student's choice, -1 none
	revealed   *int
	isRevealed bool
}

// NewClass is a page's class before its socket opens.
func NewClass(code string, teacher bool) *Class {
	return &Class{Code: code, Teacher: teacher, Status: "connecting", following: !teacher, mine: -1}
}

// Following reports whether a student follows the teacher.
func (c *Class) Following() bool { return c.following }

// Opened resets what the socket knew: a reconnecting teacher sends its
// position again, and the server sends a student the current one.
func (c *Class) Opened() {
	c.Status, c.Closed, c.sent = "connected", false, nil
}

// Lost records why the socket closed.
func (c *Class) Lost(why string, final bool) {
	c.Status, c.Closed = why, final
}

// Receive applies one server message. It returns the position a
// following student must show now, or nil.
func (c *Class) Receive(data []byte) (*Position, error) {
	var ev classEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return nil, fmt.Errorf("class %s: bad message from the server: %w", c.Code, err)
	}
	switch ev.Type {
	case "welcome":
		c.Teacher = ev.Role == "teacher"
	case "position":
		if ev.Position == nil || ev.Seq <= c.seq && c.seq != 0 {
			return nil, nil // nothing new
		}
		c.seq, c.latest = ev.Seq, ev.Position
		c.dropRevealed()
		if c.following {
			return ev.Position, nil
		}
	case "roster":
		c.connected, c.followers = ev.Connected, ev.Following
	case "ask":
		if ev.Question != nil {
			c.setQuestion(ev.Question)
		}
	case "tally":
		if c.question != nil && ev.ID == c.question.ID {
			c.counts, c.answered = ev.Counts, ev.Answered
		}
	case "reveal":
		if c.question != nil && ev.ID == c.question.ID {
			c.counts, c.revealed, c.isRevealed = ev.Counts, ev.Correct, true
			c.answered = sum(ev.Counts)
		}
	}
	return nil, nil
}

func (c *Class) setQuestion(q *Question) {
	c.question, c.counts, c.answered, c.mine, c.revealed, c.isRevealed = q, make([]int, len(q.Choices)), 0, -1, nil, false
}

// dropRevealed forgets a revealed question when the class moves on: the
// step after it shows the answer.
func (c *Class) dropRevealed() {
	if c.isRevealed {
		c.question = nil
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func encodeMsg(m classMsg) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		panic("play: encoding a class message: " + err.Error())
	}
	return b
}

// Sync is the teacher's message for the page's position, or nil when the
// server has it already.
func (c *Class) Sync(p Position) []byte {
	if !c.Teacher || c.Status != "connected" || c.sent != nil && *c.sent == p {
		return nil
	}
	c.sent = &p
	c.dropRevealed()
	return encodeMsg(classMsg{Type: "position", Position: &p})
}

// AskQuestion is the teacher's message that asks q of the room; correct is
// the choice Reveal will name (-1: none).
func (c *Class) AskQuestion(q Question, correct int) []byte {
	c.setQuestion(&q)
	c.correct = correct
	return encodeMsg(classMsg{Type: "ask", Question: &q})
}

// Reveal is the teacher's message that closes the open question, or nil.
func (c *Class) Reveal() []byte {
	if c.question == nil || c.isRevealed {
		return nil
	}
	m := classMsg{Type: "reveal", ID: c.question.ID}
	if c.correct >= 0 && c.correct < len(c.question.Choices) {
		m.Correct = &c.correct
	}
	return encodeMsg(m)
}

// Answer is a student's message choosing choice, or nil when no question
// is open.
func (c *Class) Answer(choice int) []byte {
	if c.Teacher || c.question == nil || c.isRevealed || choice < 0 || choice >= len(c.question.Choices) {
		return nil
	}
	c.mine = choice
	return encodeMsg(classMsg{Type: "answer", ID: c.question.ID, Choice: &choice})
}

// Detach is a student's message leaving the teacher, or nil if it has.
func (c *Class) Detach() []byte {
	if c.Teacher || !c.following {
		return nil
	}
	c.following = false
	f := false
	return encodeMsg(classMsg{Type: "follow", Following: &f})
}

// Follow is a student's message to follow the teacher again, and the
// teacher's newest position to show (nil before the first).
func (c *Class) Follow() ([]byte, *Position) {
	if c.Teacher || c.following {
		return nil, nil
	}
	c.following = true
	f := true
	return encodeMsg(classMsg{Type: "follow", Following: &f}), c.latest
}

// View is the room bar's view of the class; join is the students' link,
// asked the question the teacher may ask now (nil: none).
func (c *Class) View(join string, ask *Question) ui.RoomView {
	v := ui.RoomView{Code: c.Code, Join: join, Teacher: c.Teacher, Status: c.Status, Closed: c.Closed,
		Connected: c.connected, Following: c.followers, Follows: c.following}
	if c.question != nil {
		q := &ui.RoomQuestion{ID: c.question.ID, Prompt: c.question.Prompt, Choices: c.question.Choices,
			Counts: c.counts, Answered: c.answered, Mine: c.mine, Correct: -1, Revealed: c.isRevealed}
		if c.revealed != nil {
			q.Correct = *c.revealed
		}
		v.Question = q
	}
	if c.Teacher && ask != nil && (c.question == nil || c.question.ID != ask.ID) {
		v.CanAsk = ask.Prompt
	}
	return v
}
