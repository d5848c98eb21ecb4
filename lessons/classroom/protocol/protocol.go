// Package protocol is the classroom's messages (server/classroom): what
// the teacher's and the students' pages send and what the server answers,
// as JSON over the room's websocket. It is pure (fmt and strings), so the
// page's side (lessons/play.Class, run by the wasm) speaks the very same
// types as the server.
package protocol

import (
	"fmt"
	"strings"
)

// Message types. The teacher sends position, ask and reveal; a student
// sends follow and answer; the server sends welcome, position, ask and
// reveal to students, and welcome, roster, tally and reveal to the
// teacher.
const (
	TypePosition = "position"
	TypeAsk      = "ask"
	TypeReveal   = "reveal"
	TypeFollow   = "follow"
	TypeAnswer   = "answer"
	TypeWelcome  = "welcome"
	TypeRoster   = "roster"
	TypeTally    = "tally"
)

// Position is where the teacher is; a student's page replays it from the
// lesson's seed, as a lesson link does (the fields are the page's URL
// parameters).
type Position struct {
	Lesson  string `json:"lesson,omitempty"`  // a lesson slug; empty for the playground
	Seed    int64  `json:"seed,omitempty"`    // the world's seed
	Actions string `json:"actions,omitempty"` // the teacher's own steps, as in the URL
	Step    int    `json:"step"`              // counted from 1; 0 = the start
	Lang    string `json:"lang,omitempty"`    // narration language, e.g. en, fr
	Cmds    string `json:"cmds,omitempty"`    // playground commands, as in the URL
}

// Bounds of a position's fields: those of a lesson link the server
// replays itself.
const (
	MaxURLPart = 2048
	maxStep    = 100000
)

// The shapes of a slug, a language tag and a question id, checked by hand
// as the regular expression in each comment would (protocol_test.go
// checks them against regexp, which the browser bundle does without).

// validSlug: ^[a-z0-9][a-z0-9-]{0,63}$
func validSlug(s string) bool {
	return s != "" && lowerOrDigit(s[0]) && span(s[1:], 0, 63, func(c byte) bool { return lowerOrDigit(c) || c == '-' })
}

// validLang: ^[a-zA-Z]{2,8}(-[a-zA-Z0-9]{1,8})?$
func validLang(s string) bool {
	head, tail, dashed := strings.Cut(s, "-")
	return span(head, 2, 8, letter) && (!dashed || span(tail, 1, 8, alnum))
}

// validID: ^[A-Za-z0-9_.-]{1,64}$
func validID(s string) bool {
	return span(s, 1, 64, func(c byte) bool { return alnum(c) || c == '_' || c == '.' || c == '-' })
}

// span reports whether s is min to max bytes, each of them ok.
func span(s string, min, max int, ok func(byte) bool) bool {
	if len(s) < min || len(s) > max {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func lowerOrDigit(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
func letter(c byte) bool       { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func alnum(c byte) bool        { return letter(c) || '0' <= c && c <= '9' }

// Validate checks a position's shape.
func (p *Position) Validate() error {
	switch {
	case p.Lesson != "" && !validSlug(p.Lesson):
		return fmt.Errorf("lesson %q is not a lesson slug", p.Lesson)
	case p.Lang != "" && !validLang(p.Lang):
		return fmt.Errorf("lang %q is not a language tag", p.Lang)
	case p.Step < 0 || p.Step > maxStep:
		return fmt.Errorf("step %d is out of range", p.Step)
	case len(p.Actions) > MaxURLPart || len(p.Cmds) > MaxURLPart:
		return fmt.Errorf("actions and cmds are at most %d bytes", MaxURLPart)
	}
	return nil
}

// Question is a multiple-choice question the teacher asks.
type Question struct {
	ID      string   `json:"id"`
	Prompt  string   `json:"prompt,omitempty"`
	Choices []string `json:"choices"`
}

// Question bounds.
const (
	maxChoices = 10
	maxText    = 500
)

// Validate checks a question's shape.
func (q *Question) Validate() error {
	if !validID(q.ID) {
		return fmt.Errorf("question id %q: 1 to 64 letters, digits, _ . -", q.ID)
	}
	if len(q.Choices) < 2 || len(q.Choices) > maxChoices {
		return fmt.Errorf("a question has 2 to %d choices", maxChoices)
	}
	if len(q.Prompt) > maxText {
		return fmt.Errorf("a prompt is at most %d bytes", maxText)
	}
	for _, c := range q.Choices {
		if c == "" || len(c) > maxText {
			return fmt.Errorf("a choice is 1 to %d bytes", maxText)
		}
	}
	return nil
}

// In is any message a socket sends; its type says which fields count.
//
//	teacher {"type":"position","position":{"lesson":"segments","step":4}}
//	teacher {"type":"ask","question":{"id":"q1","prompt":"…","choices":["a","b"]}}
//	teacher {"type":"reveal","id":"q1","correct":1}
//	student {"type":"follow","following":false}
//	student {"type":"answer","id":"q1","choice":0}
type In struct {
	Type      string    `json:"type"`
	Position  *Position `json:"position,omitempty"`
	Question  *Question `json:"question,omitempty"`
	ID        string    `json:"id,omitempty"`
	Correct   *int      `json:"correct,omitempty"`
	Following *bool     `json:"following,omitempty"`
	Choice    *int      `json:"choice,omitempty"`
}

// Messages the server sends.
type (
	// Welcome is every socket's first message.
	Welcome struct {
		Type string `json:"type"`
		Room string `json:"room"`
		Role string `json:"role"` // "teacher" or "student"
	}
	// PositionOut relays a position; Seq counts the room's positions from 1.
	PositionOut struct {
		Type     string    `json:"type"`
		Seq      uint64    `json:"seq"`
		Position *Position `json:"position"`
	}
	// AskOut relays a question to the students.
	AskOut struct {
		Type     string    `json:"type"`
		Question *Question `json:"question"`
	}
	// Tally is the answers so far, per choice, for the teacher.
	Tally struct {
		Type     string `json:"type"`
		ID       string `json:"id"`
		Counts   []int  `json:"counts"`
		Answered int    `json:"answered"`
	}
	// RevealOut closes a question: the counts, and the right choice if the
	// teacher gave one. Everyone receives it.
	RevealOut struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Counts  []int  `json:"counts"`
		Correct *int   `json:"correct,omitempty"`
	}
	// Roster is how many students are connected, and how many of them
	// follow the teacher (the others have detached to explore).
	Roster struct {
		Type      string `json:"type"`
		Connected int    `json:"connected"`
		Following int    `json:"following"`
	}
)
