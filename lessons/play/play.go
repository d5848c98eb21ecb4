// Package play is the playground's state: a lesson's steps with the
// learner's own steps inserted among them, the URL that records both, and
// the replay that turns them into the ui's view of one step. It is pure
// (no syscall/js), so it is tested natively; wasm/main.go only wires it to
// the page.
//
// # The URL
//
//	?lesson=SLUG&step=N&seed=S&actions=K:CMD,K:CMD&answers=Q:C,Q:C&lang=L
//	?playground=1&step=N&seed=S&cmds=CMD,CMD&lang=L
//
// step counts commands run, from 1; past the end it shows the last step
// with the whole transcript. An action K:CMD runs after the lesson's K-th
// command; actions with the same K run in the order listed. Each CMD is
// query-escaped (spaces as +, commas as %2C) so commas separate entries.
//
// An answer Q:C is the learner's answer to the question of the lesson's
// Q-th command (counted in the script, so the learner's own steps do not
// move it): choice C from 1, or 0 for "Show me". A question step without
// an answer is shown in predict mode (ui.Page.Predict). lang is the
// page's language (ui.Languages); a URL without one gets the browser's
// (WithLang), and every link the page makes carries it.
//
// # Invariants
//
//   - A Session's URL gives the same page, byte for byte, whether it is
//     rendered by a fresh replay from the seed (Page: the server's first
//     paint) or from the snapshots a Timeline kept (PageOn: the browser,
//     stepping back and forth); timeline_test.go walks every lesson to
//     check it.
//   - Script steps keep their order; the learner's steps are only inserted
//     or removed, never reorder the script.
package play

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/ui"
)

// Item is one command of the timeline: a script step or the learner's.
type Item struct {
	Script int // index into the lesson's steps, or -1 for the learner's
	Cmd    string
}

// Session is one lesson (or the playground) with the learner's steps, at
// one position.
type Session struct {
	Lesson     *lessons.Lesson // nil in the playground
	Playground bool
	Embed      bool // a lesson's compact view, for an iframe (see Paths)
	// Stale is the version of the lesson a saved link was made from
	// (lessons/link's Saved links) when that is not the lesson's now: the
	// page says so instead of replaying it.
	Stale   string
	Seed    uint64
	Items   []Item
	Pos     int  // 1-based; 0 only when there are no items
	PastEnd bool // the URL asked for a step after the last
	Err     string
	Lang    string      // "" until set: English, and no lang in the URL
	Answers map[int]int // script step index -> ui.Shown or a choice's index
}

// IsIndex reports whether a query asks for the lesson list.
func IsIndex(rawQuery string) bool {
	q := parseQuery(rawQuery)
	return q.get("lesson") == "" && q.get("playground") == ""
}

// LessonSlug is the lesson a query names, or "" (the list, the
// playground).
func LessonSlug(rawQuery string) string {
	q := parseQuery(rawQuery)
	if q.get("playground") != "" {
		return ""
	}
	return q.get("lesson")
}

// Index lists every lesson in the catalog, in lang.
func Index(lang string) []ui.LessonItem {
	var items []ui.LessonItem
	for _, m := range lessons.Catalog {
		items = append(items, lessonItem(m, lang))
	}
	return items
}

// lessonItem is a lesson's entry in the list, in lang (English for ""),
// linked by its path.
func lessonItem(m lessons.Meta, lang string) ui.LessonItem {
	it := ui.LessonItem{Slug: m.Slug, Title: m.Title, About: m.About, Href: ui.Lang(lang) + "/" + m.Slug + "/"}
	if h, ok := m.Headings[lang]; ok {
		it.Title, it.About = h.Title, h.About
	}
	return it
}

// Parse reads a session from a URL query (without the leading ?).
func Parse(rawQuery string) *Session {
	q := parseQuery(rawQuery)
	s := &Session{Seed: 1}
	if l := q.get("lang"); l != "" {
		s.Lang = ui.Lang(l)
	}
	var actions []action
	if q.get("playground") != "" {
		s.Playground = true
		for _, c := range q.list("cmds") {
			actions = append(actions, action{0, c})
		}
	} else {
		l, err := lessons.Load(q.get("lesson"))
		if err != nil {
			s.Err = err.Error()
			return s
		}
		s.Lesson, s.Seed = l, l.Seed
		s.Embed = q.get(link.Embed) != ""
		if v := q.get(link.VersionParam); v != "" && v != l.Version {
			s.Stale = v
		}
		for _, a := range q.list("actions") {
			k, cmd, ok := strings.Cut(a, ":")
			n, err := strconv.Atoi(k)
			if !ok || err != nil || n < 0 {
				s.Err = fmt.Sprintf("bad action %q in the URL (want STEP:COMMAND)", a)
				return s
			}
			actions = append(actions, action{n, cmd})
		}
		if err := s.parseAnswers(q.list("answers")); err != "" {
			s.Err = err
			return s
		}
	}
	if v := q.get("seed"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			s.Err = fmt.Sprintf("bad seed %q in the URL", v)
			return s
		}
		s.Seed = n
	}
	s.Items = s.merge(actions)
	s.Pos = len(s.Items)
	if !s.Playground {
		s.Pos = 1
	}
	if v := q.get("step"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			s.Err = fmt.Sprintf("bad step %q in the URL", v)
			return s
		}
		s.Pos = n
	}
	if s.Pos > len(s.Items) {
		s.PastEnd = len(s.Items) > 0
		s.Pos = len(s.Items)
	}
	if s.Pos < 1 && len(s.Items) > 0 {
		s.Pos = 1
	}
	return s
}

type action struct {
	after int // script steps run before it
	cmd   string
}

// merge interleaves the script with the learner's actions.
func (s *Session) merge(actions []action) []Item {
	n := 0
	if s.Lesson != nil {
		n = len(s.Lesson.Steps)
	}
	var items []Item
	for k := 0; k <= n; k++ {
		for _, a := range actions {
			if min(a.after, n) == k {
				items = append(items, Item{-1, a.cmd})
			}
		}
		if k < n {
			items = append(items, Item{k, s.Lesson.Steps[k].Command})
		}
	}
	return items
}

// Query is the session's URL query, at step pos.
func (s *Session) Query(pos int) string {
	var sb strings.Builder
	if s.Playground {
		sb.WriteString("playground=1")
	} else if s.Lesson != nil {
		sb.WriteString("lesson=" + url.QueryEscape(s.Lesson.Slug))
	}
	if pos > 0 {
		fmt.Fprintf(&sb, "&step=%d", pos)
	}
	fmt.Fprintf(&sb, "&seed=%d", s.Seed)
	var entries []string
	script := 0
	for _, it := range s.Items {
		switch {
		case it.Script >= 0:
			script++
		case s.Playground:
			entries = append(entries, escape(it.Cmd))
		default:
			entries = append(entries, fmt.Sprintf("%d:%s", script, escape(it.Cmd)))
		}
	}
	if len(entries) > 0 {
		key := "actions"
		if s.Playground {
			key = "cmds"
		}
		sb.WriteString("&" + key + "=" + strings.Join(entries, ","))
	}
	if a := s.answersQuery(); a != "" {
		sb.WriteString("&answers=" + a)
	}
	if s.Lang != "" {
		sb.WriteString("&lang=" + s.Lang)
	}
	if s.Embed {
		sb.WriteString("&" + link.Embed + "=1")
	}
	if s.Stale != "" {
		sb.WriteString("&" + link.VersionParam + "=" + url.QueryEscape(s.Stale))
	}
	return sb.String()
}

// Href is a link to the session at step pos, relative to the site's root
// (see Paths).
func (s *Session) Href(pos int) string { return s.Path(pos) }

// Insert adds the learner's command after the current step and moves to it.
func (s *Session) Insert(cmd string) {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if cmd == "" {
		return
	}
	s.Items = slices.Insert(s.Items, s.Pos, Item{-1, cmd})
	s.Pos++
	s.PastEnd = false
}

// Remove deletes the learner's step n (1-based); script steps stay.
func (s *Session) Remove(n int) {
	if n < 1 || n > len(s.Items) || s.Items[n-1].Script >= 0 {
		return
	}
	s.Items = slices.Delete(s.Items, n-1, n)
	if s.Pos >= n {
		s.Pos--
	}
	if s.Pos < 1 && len(s.Items) > 0 {
		s.Pos = 1
	}
	s.PastEnd = false
}

// Actions counts the learner's steps.
func (s *Session) Actions() int {
	n := 0
	for _, it := range s.Items {
		if it.Script < 0 {
			n++
		}
	}
	return n
}

// Page builds the view of the current step on a fresh Timeline: the
// server's one-shot render. It equals PageOn with any timeline.
func (s *Session) Page() ui.Page { return s.PageOn(new(Timeline)) }

// PageOn builds the view of the current step from t's kept steps, running
// only the commands t has not run yet; the state is read right after the
// step. The page depends on the session alone, never on what t kept
// before: the same URL gives the same page.
//
// Steps up to the horizon are run: the current step in a lesson as
// written (its own seed, no learner's steps: go test ./lessons/ keeps such
// a run equal to the script), every step otherwise, so that the step list
// marks each later step a What-if or a seed changed.
func (s *Session) PageOn(t *Timeline) ui.Page {
	lang := ui.Lang(s.Lang)
	p := ui.Page{Lang: lang, Playground: s.Playground, Seed: s.Seed, Error: s.Err, Pos: s.Pos, Total: len(s.Items), PastEnd: s.PastEnd, Actions: s.Actions()}
	p.LangLinks = ui.LangLinks(lang, s.hrefIn)
	if s.Playground {
		p.Help = commandReference
		p.Title = ui.Tr(lang, "Playground")
		p.About = ui.Tr(lang, "A free world: type any command.")
	} else if s.Lesson != nil {
		it := lessonItem(s.Lesson.Meta, s.Lang)
		p.Slug, p.Title, p.About = s.Lesson.Slug, it.Title, it.About
		p.Trailer = inLang(s.Lesson.Trailer, s.Lesson.TrailerTranslations, lang)
		p.Next = nextLesson(s.Lesson.Slug, s.Lang)
		reset := &Session{Lesson: s.Lesson, Seed: s.Seed, Lang: s.Lang, Answers: s.Answers}
		reset.Items = reset.merge(nil)
		p.ResetHref = reset.Href(min(s.scriptBefore(s.Pos), len(s.Lesson.Steps)))
		if s.Embed {
			full := *s
			full.Embed = false
			p.Embed, p.FullHref = true, full.Href(s.Pos)
		}
		if s.Stale != "" {
			now := &Session{Lesson: s.Lesson, Seed: s.Lesson.Seed, Lang: s.Lang}
			now.Items = now.merge(nil)
			p.StaleHref = now.Href(1)
			return p
		}
	}
	if s.Err != "" {
		return p
	}
	steps := t.Run(s.Seed, s.commands(), s.horizon())
	views := make([]ui.StepView, len(steps))
	for i, st := range steps {
		views[i] = s.stepView(i, st)
	}
	p.State = t.Start()
	for i, it := range s.Items {
		item := ui.StepItem{N: i + 1, Command: it.Cmd, Injected: it.Script < 0 && !s.Playground, Removable: it.Script < 0, Current: i+1 == s.Pos, Href: s.Href(i + 1)}
		item.Asks = it.Script >= 0 && s.Lesson.Steps[it.Script].Question != nil
		if i < len(views) {
			item.Diverged = views[i].Diverged
		}
		p.Steps = append(p.Steps, item)
	}
	if s.Pos > 0 {
		cur := views[s.Pos-1]
		cur.Exchanges = steps[s.Pos-1].Exchanges
		p.Step = &cur
		p.Transcript = views[:s.Pos]
		p.State = steps[s.Pos-1].State
		p.Sequence = s.sequence(steps, p.State, s.Pos)
		if cur.Question != nil && cur.Chosen == ui.Unanswered && !s.Embed {
			s.predict(&p, t, steps, views)
		}
	}
	if s.Pos > 1 {
		p.PrevHref = s.Href(s.Pos - 1)
	}
	if s.Pos < len(s.Items) {
		p.NextHref = s.Href(s.Pos + 1)
	}
	p.Controls = controls(p.State, lang)
	return p
}

// commands are the timeline's commands, in order.
func (s *Session) commands() []string {
	cmds := make([]string, len(s.Items))
	for i, it := range s.Items {
		cmds[i] = it.Cmd
	}
	return cmds
}

// horizon is how many steps a page runs (PageOn).
func (s *Session) horizon() int {
	if s.Lesson != nil && s.Actions() == 0 && s.Seed == s.Lesson.Seed {
		return s.Pos
	}
	return len(s.Items)
}

// scriptBefore counts the script steps among the first n items.
func (s *Session) scriptBefore(n int) int {
	k := 0
	for _, it := range s.Items[:min(n, len(s.Items))] {
		if it.Script >= 0 {
			k++
		}
	}
	return max(k, 1)
}

// stepView is step i as the page shows it. A script step whose output
// differs from the script's (generated ids aside: SameOutput) is
// Diverged: the page marks its narration as what the script said.
func (s *Session) stepView(i int, st Step) ui.StepView {
	it := s.Items[i]
	v := ui.StepView{N: i + 1, Command: it.Cmd, Injected: it.Script < 0 && !s.Playground, Lines: st.Lines}
	if it.Script >= 0 {
		want := s.Lesson.Steps[it.Script]
		v.Narration = ui.Paragraphs(inLang(want.Narration, want.Translations, ui.Lang(s.Lang)))
		s.question(&v, it.Script, st.Out)
		if !SameOutput(want.Output, st.Out) {
			v.Diverged, v.Diff = true, ui.Diff(want.Output, st.Out)
		}
	}
	return v
}

// controls are the faults and actions offered at a step.
func controls(st view.World, lang string) []ui.Control {
	cs := []ui.Control{
		{Label: ui.Tr(lang, "Drop the next response"), Command: "fault drop response", Kind: "fault"},
		{Label: ui.Tr(lang, "Drop the next request"), Command: "fault drop request", Kind: "fault"},
		{Label: ui.Tr(lang, "Duplicate the next request"), Command: "fault duplicate request", Kind: "fault"},
		{Label: ui.Tr(lang, "Delay the next response 5s"), Command: "fault delay=5s response", Kind: "fault"},
	}
	for _, b := range st.Brokers {
		if b.Up {
			cs = append(cs, ui.Control{Label: ui.Trf(lang, "Crash %s", b.Name), Command: "crash " + b.Name, Kind: "broker"})
		} else {
			cs = append(cs, ui.Control{Label: ui.Trf(lang, "Restart %s", b.Name), Command: "restart " + b.Name, Kind: "broker"})
		}
	}
	switch {
	case len(st.Cut) > 0:
		cs = append(cs, ui.Control{Label: ui.Tr(lang, "Heal the network"), Command: "heal", Kind: "fault"})
	case len(st.Brokers) > 1:
		for _, b := range st.Brokers {
			cs = append(cs, ui.Control{Label: ui.Trf(lang, "Cut %s off", b.Name), Command: "partition " + b.Name, Kind: "fault"})
		}
	}
	cs = append(cs,
		ui.Control{Label: ui.Tr(lang, "Advance 1s"), Command: "advance 1s", Kind: "clock"},
		ui.Control{Label: ui.Tr(lang, "Advance 1m"), Command: "advance 1m", Kind: "clock"},
	)
	return cs
}

// escape query-escapes a command, leaving = and : readable.
func escape(cmd string) string {
	e := url.QueryEscape(cmd)
	return strings.NewReplacer("%3D", "=", "%3A", ":", "%2F", "/").Replace(e)
}

type query map[string]string

// parseQuery splits a raw query without unescaping list values, whose
// entries are escaped one by one.
func parseQuery(raw string) query {
	q := query{}
	raw = strings.TrimPrefix(raw, "?")
	for _, kv := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if k, err := url.QueryUnescape(k); err == nil && k != "" {
			q[k] = v
		}
	}
	return q
}

func (q query) list(key string) []string {
	var out []string
	for _, e := range strings.Split(q[key], ",") {
		if v, err := url.QueryUnescape(e); err == nil && strings.TrimSpace(v) != "" {
			out = append(out, strings.TrimSpace(v))
		}
	}
	return out
}

// Get reads a single (unescaped) value.
func (q query) get(key string) string {
	v, _ := url.QueryUnescape(q[key])
	return v
}
