package classroom

import (
	"encoding/json"
	"github.com/gregor-kafka/gregor/lessons/classroom/protocol"
	"sync"
	"time"

	"github.com/gregor-kafka/gregor/server/wsmsg"
)

// outboxSize is how many messages a socket may have waiting: a student
// that falls this far behind is closed ("too slow") and, reconnecting,
// gets the current position.
const outboxSize = 256

// member is one socket of a room.
type member struct {
	teacher   bool
	out       chan []byte
	stop      chan struct{}
	once      sync.Once
	why       error // set before stop closes
	following bool  // guarded by the room's mu
}

func newMember(teacher bool) *member {
	return &member{teacher: teacher, out: make(chan []byte, outboxSize), stop: make(chan struct{}), following: true}
}

// send queues a message without waiting; a full outbox kicks the member.
func (m *member) send(msg []byte) {
	select {
	case m.out <- msg:
	default:
		m.kick(wsmsg.Refuse("too slow to keep up with the class: reconnect to catch up"))
	}
}

// kick ends the member's socket with err as its close reason.
func (m *member) kick(err error) {
	m.once.Do(func() { m.why = err; close(m.stop) })
}

// Room is one class: its teacher, students, current position and open
// question.
type Room struct {
	Code  string
	token string // the teacher's

	mu         sync.Mutex
	teacher    *member
	students   map[*member]bool
	seq        uint64
	position   []byte // the last protocol.PositionOut, encoded; nil before the first
	question   *protocol.Question
	answers    map[*member]int // choice per student, for the open question
	lastActive time.Time
	closed     bool
}

// encode marshals a server message; they are plain structs, so it cannot
// fail.
func encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("classroom: encoding " + err.Error())
	}
	return b
}

// join adds a socket, queues what it must know first, and tells the
// teacher. It fails if the room is full or closed.
func (r *Room) join(m *member, maxStudents int, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return wsmsg.Refuse("room %s has closed", r.Code)
	}
	role := "student"
	if m.teacher {
		role = "teacher"
	} else if len(r.students) >= maxStudents {
		return wsmsg.Refuse("room %s is full (%d students)", r.Code, maxStudents)
	}
	r.lastActive = now
	m.send(encode(protocol.Welcome{Type: protocol.TypeWelcome, Room: r.Code, Role: role}))
	if m.teacher {
		if r.teacher != nil {
			r.teacher.kick(wsmsg.Refuse("the teacher connected again elsewhere"))
		}
		r.teacher = m
		m.send(r.rosterLocked())
		if r.question != nil {
			m.send(r.tallyLocked())
		}
		return nil
	}
	r.students[m] = true
	if r.position != nil {
		m.send(r.position)
	}
	if r.question != nil {
		m.send(encode(protocol.AskOut{Type: protocol.TypeAsk, Question: r.question}))
	}
	r.toTeacherLocked(r.rosterLocked())
	return nil
}

// leave removes a socket.
func (r *Room) leave(m *member) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m == r.teacher {
		r.teacher = nil
		return
	}
	if r.students[m] {
		delete(r.students, m)
		delete(r.answers, m)
		r.toTeacherLocked(r.rosterLocked())
	}
}

// close ends the room and all its sockets with why.
func (r *Room) close(why error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.teacher != nil {
		r.teacher.kick(why)
	}
	for m := range r.students {
		m.kick(why)
	}
}

// idleSince is when something last happened in the room.
func (r *Room) idleSince() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastActive
}

// handle applies one message of m (already decoded and typed).
func (r *Room) handle(m *member, in *protocol.In, now time.Time) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch in.Type {
	case protocol.TypePosition, protocol.TypeAsk, protocol.TypeReveal:
		if m != r.teacher {
			return wsmsg.Refuse("only the teacher drives this room")
		}
		r.lastActive = now
	}
	switch in.Type {
	case protocol.TypePosition:
		if in.Position == nil {
			return wsmsg.Refuse(`a "position" message needs a position`)
		}
		if err := in.Position.Validate(); err != nil {
			return wsmsg.Refuse("bad position: %v", err)
		}
		r.seq++
		r.position = encode(protocol.PositionOut{Type: protocol.TypePosition, Seq: r.seq, Position: in.Position})
		r.toStudentsLocked(r.position)
	case protocol.TypeAsk:
		if in.Question == nil {
			return wsmsg.Refuse(`an "ask" message needs a question`)
		}
		if err := in.Question.Validate(); err != nil {
			return wsmsg.Refuse("bad question: %v", err)
		}
		r.question, r.answers = in.Question, map[*member]int{}
		r.toStudentsLocked(encode(protocol.AskOut{Type: protocol.TypeAsk, Question: in.Question}))
		m.send(r.tallyLocked())
	case protocol.TypeReveal:
		if r.question == nil || in.ID != r.question.ID {
			return wsmsg.Refuse("reveal %q: no such open question", in.ID)
		}
		if in.Correct != nil && (*in.Correct < 0 || *in.Correct >= len(r.question.Choices)) {
			return wsmsg.Refuse("reveal: correct choice %d is out of range", *in.Correct)
		}
		msg := encode(protocol.RevealOut{Type: protocol.TypeReveal, ID: in.ID, Counts: r.countsLocked(), Correct: in.Correct})
		r.question, r.answers = nil, nil
		r.toStudentsLocked(msg)
		m.send(msg)
	case protocol.TypeFollow:
		if m.teacher || in.Following == nil {
			return wsmsg.Refuse(`"follow" is a student's, with "following": true or false`)
		}
		if m.following != *in.Following {
			m.following = *in.Following
			r.toTeacherLocked(r.rosterLocked())
		}
	case protocol.TypeAnswer:
		if m.teacher || in.Choice == nil {
			return wsmsg.Refuse(`"answer" is a student's, with an "id" and a "choice"`)
		}
		if r.question == nil || in.ID != r.question.ID {
			return nil // a late answer to a closed question: not an error
		}
		if *in.Choice < 0 || *in.Choice >= len(r.question.Choices) {
			return wsmsg.Refuse("answer: choice %d is out of range", *in.Choice)
		}
		r.answers[m] = *in.Choice
		r.toTeacherLocked(r.tallyLocked())
	default:
		return wsmsg.Refuse("unknown message type %q", in.Type)
	}
	return nil
}

func (r *Room) toStudentsLocked(msg []byte) {
	for s := range r.students {
		s.send(msg)
	}
}

func (r *Room) toTeacherLocked(msg []byte) {
	if r.teacher != nil {
		r.teacher.send(msg)
	}
}

func (r *Room) rosterLocked() []byte {
	following := 0
	for s := range r.students {
		if s.following {
			following++
		}
	}
	return encode(protocol.Roster{Type: protocol.TypeRoster, Connected: len(r.students), Following: following})
}

func (r *Room) countsLocked() []int {
	counts := make([]int, len(r.question.Choices))
	for _, c := range r.answers {
		counts[c]++
	}
	return counts
}

func (r *Room) tallyLocked() []byte {
	return encode(protocol.Tally{Type: protocol.TypeTally, ID: r.question.ID, Counts: r.countsLocked(), Answered: len(r.answers)})
}
