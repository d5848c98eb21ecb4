package play

import (
	"fmt"

	"github.com/a-h/templ"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/ui"
)

// Budget bounds what rendering one URL may cost. A URL is a stranger's
// script: without a budget, `?playground=1&cmds=cluster+3,advance+2h,...`
// costs seconds of CPU per advance and megabytes of HTML.
type Budget struct {
	// Commands bounds the timeline's steps, the lesson's own included.
	Commands int
	// World bounds the simulator's work and clock (sim.Limits).
	World sim.Limits
}

// ServerBudget is what the native server spends on one prerender. It is
// picked from measurements (budget_test.go prints them with -v): the
// largest lesson runs 37 commands (assignors), 611 s of simulated time
// (retention) and 8,136 work units (replica-placement: five brokers,
// ~0.1 s of CPU); the budget leaves every lesson a margin of 4x or more
// for the learner's own steps. The costliest URL found within it (five
// brokers, 50 partitions of rf=5, minutes of clock) takes about 1 s of
// CPU before it is refused; `cluster 3` with 2 h of clock, 380,000 units,
// is refused at once.
var ServerBudget = Budget{
	Commands: 200,
	World:    sim.Limits{Work: 40_000, Time: 3_600_000},
}

// Render is View for a server that spends at most b on the page: it also
// returns the HTTP status to answer with. A URL over the budget gets 422
// and a page that names the limit it hit.
func Render(rawQuery string, b Budget) (templ.Component, string, int) {
	lang := parseQuery(rawQuery).get("lang")
	if IsIndex(rawQuery) {
		return ui.InLang(lang, ui.Index(Index(lang))), ui.Tr(ui.Lang(lang), "Gregor — lessons"), 200
	}
	s := Parse(rawQuery)
	if s.missing() {
		return ui.InLang(lang, ui.NotFound(s.Err, Index(lang))), ui.Tr(ui.Lang(lang), "No such lesson — Gregor"), 404
	}
	if b.Commands > 0 && len(s.Items) > b.Commands {
		return overBudget(lang, fmt.Sprintf("This link has %d steps; the server replays at most %d.", len(s.Items), b.Commands))
	}
	t := &Timeline{Limits: b.World}
	p := s.PageOn(t)
	if err := t.Over(); err != nil {
		return overBudget(lang, fmt.Sprintf("This link asks for more than the server replays (%v).", err))
	}
	comp, title := LessonView(p)
	return comp, title, 200
}

// overBudget is the refusal of a URL over the server's budget. Why it was
// refused names the limit in English, as the engine's errors do.
func overBudget(lang, msg string) (templ.Component, string, int) {
	msg += " Shorten it: fewer steps, shorter advances, fewer brokers."
	l := ui.Lang(lang)
	return ui.InLang(lang, ui.Refused(ui.Tr(l, "Too much to replay"), msg, Index(lang))), ui.Tr(l, "Too much to replay — Gregor"), 422
}
