package ui

import (
	"context"
	"strings"

	"github.com/gregor-kafka/gregor/core/view"
)

// QuestionView is a step's prediction as the page shows it
// (lessons.Question): asked before the step's output is shown, revealed
// with the choice the output proves.
type QuestionView struct {
	Text    string   // in the page's language
	Field   string   // the output pattern that decides it, {} for the choice
	Choices []string // as the output spells them
	Answer  int      // the choice the step's output shows; -1 if none does
	Line    string   // the output line that shows it ("" if none does)
}

// The learner's answer to a question besides a choice's index.
const (
	Unanswered = -2 // still to predict: the step is shown in predict mode
	Shown      = -1 // revealed without an answer ("Show me")
)

// Decided is the question's field with the answer in it: what to read in
// the output. "" when no choice is shown there.
func (q QuestionView) Decided() string {
	if q.Answer < 0 || q.Answer >= len(q.Choices) {
		return ""
	}
	return strings.Replace(q.Field, "{}", q.Choices[q.Answer], 1)
}

// verdict is the reveal's headline and class for the learner's answer.
func (q QuestionView) verdict(lang string, chosen int) (string, string) {
	switch {
	case chosen == Shown:
		return Tr(lang, "The answer"), "shown"
	case chosen == q.Answer:
		return Tr(lang, "Right!"), "right"
	}
	return Tr(lang, "Not quite."), "wrong"
}

// choiceClass marks a revealed choice: the answer, the learner's choice.
func (q QuestionView) choiceClass(i, chosen int) string {
	c := "choice"
	if i == q.Answer {
		c += " answer"
	}
	if i == chosen {
		c += " chosen"
	}
	return c
}

// choiceMark is a revealed choice's mark in words (the glyph alone is
// not read out).
func (q QuestionView) choiceMark(lang string, i, chosen int) string {
	switch {
	case i == q.Answer && i == chosen:
		return Tr(lang, "✓ your answer, right")
	case i == q.Answer:
		return Tr(lang, "✓ the answer")
	case i == chosen:
		return Tr(lang, "✗ your answer")
	}
	return ""
}

// predictDiagram is d in a page's predict mode, where the step's
// messages are not drawn yet.
func predictDiagram(d Diagram, predict bool) Diagram {
	d.Hidden = predict
	return d
}

// roleWords are the words a diagram node's lines start with: its state
// (diagram.go), its roles as Kafka names them (view.Actor.Roles) and a
// client's kind or a group member's group (core/sim/view_actors.go);
// roleText looks them up and leaves the rest of a line (names, epochs,
// settings, a group's state) as it is. A longer word goes before a word
// it starts with.
var roleWords = []string{N("crashed"), N("stopped"), N("✂ cut off"), N("active controller"), N("voter"), N("group coordinator"), N("transaction coordinator"), N("rack"),
	view.KindProducer, view.KindConsumer, view.KindAdmin, N("share group"), N("group"), N("adding"), N("removing")}

// roleText is a diagram node's line in the component's language.
func roleText(ctx context.Context, line string) string {
	if head, ok := strings.CutSuffix(line, ", out of ISR"); ok {
		return roleText(ctx, head) + ", " + T(ctx, "out of ISR")
	}
	return lookupPrefix(ctx, roleWords, line)
}

// lookupPrefix translates the word of words that text starts with, if
// any, keeping what follows it.
func lookupPrefix(ctx context.Context, words []string, text string) string {
	for _, w := range words {
		if rest, ok := strings.CutPrefix(text, w); ok && (rest == "" || rest[0] == ' ') {
			return T(ctx, w) + rest
		}
	}
	return text
}

// markWords are the marks a message can carry (model.go), each looked up
// by markText; a mark may go on with a detail ("delayed 5s", "in flight #3").
var markWords = []string{MarkDropped, MarkBrokerDown, MarkDuplicated, MarkCopy, MarkDelayed, MarkLate, MarkInFlight, N("held")}

// markText is a message's mark in the component's language.
func markText(ctx context.Context, mark string) string { return lookupPrefix(ctx, markWords, mark) }
