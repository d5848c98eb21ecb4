package ui

import (
	"strings"

	"github.com/gregor-kafka/gregor/core/view"
)

// LessonItem is one entry of the lesson list.
type LessonItem struct {
	Slug, Title, About string
	Written            bool
	Href               string
}

// Page is everything a lesson or the playground shows at one step. The
// wasm builds it by replaying the world; the components only render it.
type Page struct {
	Playground bool
	Slug       string
	Title      string
	About      string
	Seed       uint64
	Error      string // a lesson that cannot be shown, or a bad URL

	Pos, Total int  // the current step (1-based) and how many there are
	PastEnd    bool // the URL asked for a step after the last one
	PrevHref   string
	NextHref   string
	ResetHref  string // back to the script, without the learner's actions
	Steps      []StepItem
	Step       *StepView // nil before the first step (an empty playground)
	Transcript []StepView
	State      view.World
	Sequence   []SeqMsg // every message up to the current step (sequence.go)
	Controls   []Control
	Trailer    string // narration after the lesson's last command
	Actions    int    // how many steps the learner added
}

// StepItem is one entry of the step list.
type StepItem struct {
	N         int
	Command   string
	Injected  bool // the learner's step in a lesson
	Removable bool // the learner's, in a lesson or the playground
	Diverged  bool // printed something other than the script
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

// Help is the command set, one line each, for the playground.
var Help = []Field{
	{"broker [setting=value ...]", "start the next broker (b0, b1, ...) with Kafka settings"},
	{"cluster N [setting=value ...]", "instead, start N brokers on a raft metadata quorum (loads a larger engine)"},
	{"topic NAME [partitions=N] [rf=N] [config=value ...]", "create a topic (CreateTopics)"},
	{"add-partitions TOPIC count=N", "grow a topic (CreatePartitions)"},
	{"delete-topic TOPIC", "delete a topic and its logs (DeleteTopics)"},
	{"producer NAME [idempotent] [acks=all|1|0]", "a simulated producer"},
	{"produce NAME TOPIC key=K|partition=N value=V [count=N]", "send records (Produce)"},
	{"consumer NAME [read_committed]", "a simulated consumer"},
	{"fetch NAME TOPIC-P [offset=N] [wait=MS]", "read records (Fetch)"},
	{"list-offsets TOPIC-P timestamp=earliest|latest|MS", "find an offset (ListOffsets)"},
	{"delete-records TOPIC-P before=N", "move the log start offset (DeleteRecords)"},
	{"show log TOPIC-P | show files [BROKER]", "print a partition's segments or a broker's files"},
	{"show replicas TOPIC-P", "in a cluster: each replica's log end and high watermark, the ISR"},
	{"lookup TOPIC-P offset=N | timestamp=T", "how the broker finds a record through its indexes"},
	{"advance DURATION", "move the virtual clock (500ms, 30s, 5m)"},
	{"crash BROKER | restart BROKER", "lose what was not synced; recover from storage"},
	{"partition BROKER [BROKER ...] | heal", "in a cluster: cut those brokers off from the others (clients reach both sides); end it"},
	{"fault drop|duplicate|delay=D [request|response] [from=X] [to=Y]", "arm a fault against the next matching message"},
	{"net hold | net auto | net", "hold messages to deliver them by hand; list what is in flight"},
	{"deliver [ID|all] | drop ID | duplicate ID | delay ID D | swap ID ID", "act on a held message"},
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

func ariaCurrent(b bool) string {
	if b {
		return "step"
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
