package ui

import (
	"strings"

	"github.com/gregor-kafka/gregor/core/view"
)

// LessonItem is one entry of the lesson list.
type LessonItem struct {
	Slug, Title, About string
	Href               string
}

// Page is everything a lesson or the playground shows at one step. The
// wasm builds it by replaying the world; the components only render it.
type Page struct {
	Lang       string     // the page's language (Languages); its words come from InLang
	LangLinks  []LangLink // the same page in each language
	Playground bool
	// Help is the playground's command reference, one line each: the
	// simulator's own usage table (lessons/play fills it from
	// sim.Commands), so it lists every command the engine knows and
	// nothing else. Each description is looked up in the catalogs where
	// it is drawn (i18n_test.go holds every one to a translation); the
	// synopses stay as the engine reads them.
	Help []Field

	Embed    bool   // the compact view for an iframe (Embed)
	FullHref string // an embed's link out to the whole lesson
	Slug     string
	Title    string
	About    string
	Seed     uint64
	Error    string // a lesson that cannot be shown, or a bad URL
	// StaleHref is set on a saved link made from an earlier version of
	// the lesson: the lesson as it is now, which the page offers instead
	// of replaying the link.
	StaleHref string

	Pos, Total int  // the current step (1-based) and how many there are
	PastEnd    bool // the URL asked for a step after the last one
	PrevHref   string
	NextHref   string
	ResetHref  string // back to the script, without the learner's actions
	Steps      []StepItem
	Step       *StepView // nil before the first step (an empty playground)
	// Predict is a question step not answered yet: Step has its command
	// and question only, and State, Sequence and Transcript are those
	// before it, so nothing on the page gives the answer away.
	Predict    bool
	Transcript []StepView
	State      view.World
	Sequence   []SeqMsg // every message up to the current step (sequence.go)
	Controls   []Control
	Trailer    string      // narration after the lesson's last command
	Next       *LessonItem // the lesson after this one; nil after the last
	Actions    int         // how many steps the learner added
	// Folds is what the learner opened of what a page draws only when
	// opened; the page knows it (wasm/keep.go), a first paint has all
	// closed.
	Folds Folds
	// Typed is a command the learner typed that the engine rejected, left
	// in the prompt to fix; Rejected is what the engine said. Neither is
	// in the timeline or the URL.
	Typed, Rejected string
}

// Folds are the parts of a page drawn only while open: each step draws
// them again, and a long lesson's sequence or transcript is most of its
// page.
type Folds struct {
	Sequence   bool // the sequence of the messages so far (SequenceView)
	AllTraffic bool // ... with the background traffic unfolded
	Transcript bool // every step so far
}

// StepItem is one entry of the step list.
type StepItem struct {
	N         int
	Command   string
	Injected  bool // the learner's step in a lesson
	Removable bool // the learner's, in a lesson or the playground
	Diverged  bool // printed something other than the script
	Asks      bool // a question comes before it (QuestionBlock)
	Current   bool
	Href      string
}

// StepView is one step: its narration, command, the exchanges it caused,
// what it printed and, when that differs, what the script expected.
type StepView struct {
	N         int
	Narration []string // paragraphs
	Command   string
	Injected  bool
	Exchanges []Exchange
	Lines     []Line
	Diverged  bool
	Diff      []DiffLine
	Question  *QuestionView // the prediction asked before the step; nil for most
	Chosen    int           // the learner's answer to Question (Unanswered, Shown or a choice)
}

// Control is a fault or action the learner can add at the current step.
type Control struct {
	Label   string
	Command string
	Kind    string // fault, broker, clock
}

// Example is a playground command offered while the world is empty.
var Examples = []string{
	"broker log.segment.bytes=300 log.index.interval.bytes=150",
	"topic orders partitions=2",
	"producer p1 idempotent",
	"produce p1 orders key=k1 value=hello count=3",
	"consumer c1",
	"fetch c1 orders-0 offset=0",
	"show log orders-0",
}

func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if p = strings.TrimSpace(strings.ReplaceAll(p, "\n", " ")); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Paragraphs splits narration on blank lines and joins wrapped lines.
func Paragraphs(s string) []string { return paragraphs(s) }

func ariaCurrent(b bool) string { return ariaCurrentAs(b, "step") }

// ariaCurrentAs is aria-current's value: token when current.
func ariaCurrentAs(current bool, token string) string {
	if current {
		return token
	}
	return "false"
}

func diffClass(op byte) string {
	switch op {
	case '-':
		return "del"
	case '+':
		return "add"
	}
	return "same"
}

func markClass(mark string) string {
	switch {
	case mark == "":
		return ""
	case strings.HasPrefix(mark, "in flight"):
		return "held"
	case strings.HasPrefix(mark, "delayed"), mark == MarkLate:
		return "delayed"
	case strings.HasPrefix(mark, "dup"):
		return "duplicated"
	}
	return "dropped"
}
