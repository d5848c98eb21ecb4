package ui

import "fmt"

// RoomView is a class as one page shows it in its room bar (teach.templ):
// the teacher's join code, link and head count, or a student's following
// state; and the question asked of the room, if any.
type RoomView struct {
	Code    string
	Join    string // the students' link, absolute
	Teacher bool
	Status  string // "connecting", "connected", or why the socket closed
	Closed  bool   // for good: the room is gone, or another tab teaches it
	// The teacher's: how many students are connected, how many follow.
	Connected, Following int
	Follows              bool   // a student's: following the teacher
	CanAsk               string // the teacher's: the question the next step asks, if not asked yet
	Big                  bool   // the teacher's: the join code over the page, for the back of the room
	Loopback             bool   // the teacher's page is on 127.0.0.1 or localhost: the link reaches no student
	Projector            bool   // projector mode is on
	Question             *RoomQuestion
}

// RoomQuestion is the question open in the room, or the last one revealed.
type RoomQuestion struct {
	ID       string
	Prompt   string
	Choices  []string
	Counts   []int // per choice; the teacher's as they come, everyone's after the reveal
	Answered int
	Mine     int // this student's choice, -1 for none
	Correct  int // after the reveal, when the script knows it; -1 otherwise
	Revealed bool
}

// share is choice i's part of the answers, as a CSS width.
func (q *RoomQuestion) share(i int) string {
	if q.Answered == 0 || i >= len(q.Counts) {
		return "0%"
	}
	return fmt.Sprintf("%d%%", q.Counts[i]*100/q.Answered)
}

func (q *RoomQuestion) count(i int) int {
	if i >= len(q.Counts) {
		return 0
	}
	return q.Counts[i]
}
