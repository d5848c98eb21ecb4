package play

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/gregor-kafka/gregor/lessons/classroom/protocol"
	"github.com/gregor-kafka/gregor/ui"
)

// A class is a room of server/classroom seen from one page: the teacher's,
// which sends its Position on every change, or a student's, which follows
// the teacher's positions or explores on its own. Class is that page's
// side of the protocol (lessons/classroom/protocol), pure so that it is
// tested natively; wasm/room.go only carries its messages over the
// browser's WebSocket.
//
// # Invariants
//
//   - A following student applies every position it receives, in the
//     order received; a detached one only keeps the newest, and applies it
//     when it follows again (Follow), so one click brings it back. A
//     detached student stays detached across reconnects (Opened tells the
//     server again).
//   - The teacher sends a position only when it differs from the last one
//     the server acknowledged on this socket (a reconnect sends it again).
//   - A student's answer is its own until the teacher reveals; the reveal
//     shows everyone the counts and, when the script knows it, the right
//     choice, until the teacher's next position.

// Position is where the teacher is: the URL parameters that replay the
// page, as the classroom relays them.
type Position = protocol.Position

// Question is a multiple-choice question asked of the room.
type Question = protocol.Question

// Position is the session's current position, with the page's language.
// The seed goes bit for bit into the protocol's int64.
func (s *Session) Position(lang string) Position {
	q := parseQuery(s.Query(s.Pos))
	p := Position{Seed: int64(s.Seed), Step: s.Pos, Lang: lang, Actions: q["actions"], Cmds: q["cmds"]}
	if s.Lesson != nil {
		p.Lesson = s.Lesson.Slug
	}
	return p
}

// PositionQuery is the URL query that replays a position (Parse reads
// it).
func PositionQuery(p Position) string {
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
// position again, and the server sends a student the current one. It
// returns the message a detached student sends first (the server takes a
// new socket for a follower), or nil.
func (c *Class) Opened() []byte {
	c.Status, c.Closed, c.sent = "connected", false, nil
	if c.Teacher || c.following {
		return nil
	}
	f := false
	return encodeMsg(protocol.In{Type: protocol.TypeFollow, Following: &f})
}

// Detached makes a new student's class start detached: the page's
// student had left the teacher before the page was loaded again.
func (c *Class) Detached() {
	if !c.Teacher {
		c.following = false
	}
}

// Lost records why the socket closed.
func (c *Class) Lost(why string, final bool) {
	c.Status, c.Closed = why, final
}

// Receive applies one server message. It returns the position a
// following student must show now, or nil.
func (c *Class) Receive(data []byte) (*Position, error) {
	var typed struct{ Type string }
	if err := json.Unmarshal(data, &typed); err != nil {
		return nil, fmt.Errorf("class %s: bad message from the server: %w", c.Code, err)
	}
	switch typed.Type {
	case protocol.TypeWelcome:
		var w protocol.Welcome
		json.Unmarshal(data, &w)
		c.Teacher = w.Role == "teacher"
	case protocol.TypePosition:
		var p protocol.PositionOut
		json.Unmarshal(data, &p)
		if p.Position == nil || p.Seq <= c.seq && c.seq != 0 {
			return nil, nil // nothing new
		}
		c.seq, c.latest = p.Seq, p.Position
		c.dropRevealed()
		if c.following {
			return p.Position, nil
		}
	case protocol.TypeRoster:
		var r protocol.Roster
		json.Unmarshal(data, &r)
		c.connected, c.followers = r.Connected, r.Following
	case protocol.TypeAsk:
		var a protocol.AskOut
		if json.Unmarshal(data, &a); a.Question != nil {
			c.setQuestion(a.Question)
		}
	case protocol.TypeTally:
		var t protocol.Tally
		if json.Unmarshal(data, &t); c.question != nil && t.ID == c.question.ID {
			c.counts, c.answered = t.Counts, t.Answered
		}
	case protocol.TypeReveal:
		var r protocol.RevealOut
		if json.Unmarshal(data, &r); c.question != nil && r.ID == c.question.ID {
			c.counts, c.revealed, c.isRevealed = r.Counts, r.Correct, true
			c.answered = sum(r.Counts)
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

func encodeMsg(m protocol.In) []byte {
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
	return encodeMsg(protocol.In{Type: protocol.TypePosition, Position: &p})
}

// AskQuestion is the teacher's message that asks q of the room; correct is
// the choice Reveal will name (-1: none).
func (c *Class) AskQuestion(q Question, correct int) []byte {
	c.setQuestion(&q)
	c.correct = correct
	return encodeMsg(protocol.In{Type: protocol.TypeAsk, Question: &q})
}

// Reveal is the teacher's message that closes the open question, or nil.
func (c *Class) Reveal() []byte {
	if c.question == nil || c.isRevealed {
		return nil
	}
	m := protocol.In{Type: protocol.TypeReveal, ID: c.question.ID}
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
	return encodeMsg(protocol.In{Type: protocol.TypeAnswer, ID: c.question.ID, Choice: &choice})
}

// Detach is a student's message leaving the teacher, or nil if it has.
func (c *Class) Detach() []byte {
	if c.Teacher || !c.following {
		return nil
	}
	c.following = false
	f := false
	return encodeMsg(protocol.In{Type: protocol.TypeFollow, Following: &f})
}

// Follow is a student's message to follow the teacher again, and the
// teacher's newest position to show (nil before the first).
func (c *Class) Follow() ([]byte, *Position) {
	if c.Teacher || c.following {
		return nil, nil
	}
	c.following = true
	f := true
	return encodeMsg(protocol.In{Type: protocol.TypeFollow, Following: &f}), c.latest
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
