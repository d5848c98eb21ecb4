// Package play is the playground's state: a lesson's steps with the
// learner's own steps inserted among them, the URL that records both, and
// the replay that turns them into the ui's view of one step. It is pure
// (no syscall/js), so it is tested natively; wasm/main.go only wires it to
// the page.
//
// # The URL
//
//	?lesson=SLUG&step=N&seed=S&actions=K:CMD,K:CMD
//	?playground=1&step=N&seed=S&cmds=CMD,CMD
//
// step counts commands run, from 1; past the end it shows the last step
// with the whole transcript. An action K:CMD runs after the lesson's K-th
// command; actions with the same K run in the order listed. Each CMD is
// query-escaped (spaces as +, commas as %2C) so commas separate entries.
//
// # Invariants
//
//   - A Session's URL replays to the same page, byte for byte: the world is
//     rebuilt from the seed and the commands on every render.
//   - Script steps keep their order; the learner's steps are only inserted
//     or removed, never reorder the script.
package play

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/lessons"
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
	Seed       uint64
	Items      []Item
	Pos        int  // 1-based; 0 only when there are no items
	PastEnd    bool // the URL asked for a step after the last
	Err        string
}

// IsIndex reports whether a query asks for the lesson list.
func IsIndex(rawQuery string) bool {
	q := parseQuery(rawQuery)
	return q.get("lesson") == "" && q.get("playground") == ""
}

// Index lists every lesson in the catalog.
func Index() []ui.LessonItem {
	var items []ui.LessonItem
	for _, m := range lessons.Catalog {
		items = append(items, ui.LessonItem{Slug: m.Slug, Title: m.Title, About: m.About, Written: lessons.Available(m.Slug), Href: "?lesson=" + m.Slug})
	}
	return items
}

// Parse reads a session from a URL query (without the leading ?).
func Parse(rawQuery string) *Session {
	q := parseQuery(rawQuery)
	s := &Session{Seed: 1}
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
		for _, a := range q.list("actions") {
			k, cmd, ok := strings.Cut(a, ":")
			n, err := strconv.Atoi(k)
			if !ok || err != nil || n < 0 {
				s.Err = fmt.Sprintf("bad action %q in the URL (want STEP:COMMAND)", a)
				return s
			}
			actions = append(actions, action{n, cmd})
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
	return sb.String()
}

// Href is a link to the session at step pos.
func (s *Session) Href(pos int) string { return "?" + s.Query(pos) }

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

// Page replays the whole timeline in a fresh world and builds the view of
// the current step: the state is read right after it.
func (s *Session) Page() ui.Page {
	p := ui.Page{Playground: s.Playground, Seed: s.Seed, Error: s.Err, Pos: s.Pos, Total: len(s.Items), PastEnd: s.PastEnd, Actions: s.Actions()}
	if s.Playground {
		p.Title = "Playground"
		p.About = "A free world: type any command."
	} else if s.Lesson != nil {
		p.Slug, p.Title, p.About, p.Trailer = s.Lesson.Slug, s.Lesson.Title, s.Lesson.About, s.Lesson.Trailer
		reset := &Session{Lesson: s.Lesson, Seed: s.Seed}
		reset.Items = reset.merge(nil)
		p.ResetHref = reset.Href(min(s.scriptBefore(s.Pos), len(s.Lesson.Steps)))
	}
	if s.Err != "" {
		return p
	}
	w := sim.New(s.Seed)
	var before view.World
	views := make([]ui.StepView, len(s.Items))
	for i, it := range s.Items {
		if i == s.Pos-1 {
			before = w.View()
		}
		out := lessons.Exec(w, it.Cmd)
		if i == s.Pos-1 {
			p.State = w.View()
			view.MarkChanges(&before, &p.State)
		}
		views[i] = s.stepView(w, i, out)
	}
	if s.Pos == 0 {
		p.State = w.View()
	}
	for i, v := range views {
		p.Steps = append(p.Steps, ui.StepItem{N: i + 1, Command: v.Command, Injected: v.Injected, Removable: s.Items[i].Script < 0, Diverged: v.Diverged, Current: i+1 == s.Pos, Href: s.Href(i + 1)})
	}
	if s.Pos > 0 {
		cur := views[s.Pos-1]
		cur.Exchanges = ui.Exchanges(w.Events(), s.Pos-1)
		p.Step = &cur
		p.Transcript = views[:s.Pos]
		p.Sequence = s.sequence(w, p.State, s.Pos)
	}
	if s.Pos > 1 {
		p.PrevHref = s.Href(s.Pos - 1)
	}
	if s.Pos < len(s.Items) {
		p.NextHref = s.Href(s.Pos + 1)
	}
	p.Controls = controls(p.State)
	return p
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

func (s *Session) stepView(w *sim.World, i int, out string) ui.StepView {
	it := s.Items[i]
	v := ui.StepView{N: i + 1, Command: it.Cmd, Injected: it.Script < 0 && !s.Playground, Lines: ui.Lines(w.Events(), i)}
	// An error is printed by lessons.Exec, not by an event.
	outLines := strings.Split(out, "\n")
	if out != "" && len(outLines) > len(v.Lines) {
		for _, l := range outLines[len(v.Lines):] {
			v.Lines = append(v.Lines, ui.Line{Kind: "error", Text: l})
		}
	}
	if it.Script >= 0 {
		st := s.Lesson.Steps[it.Script]
		v.Narration = ui.Paragraphs(st.Narration)
		if out != st.Output {
			v.Diverged, v.Diff = true, ui.Diff(st.Output, out)
		}
	}
	return v
}

// controls are the faults and actions offered at a step.
func controls(st view.World) []ui.Control {
	cs := []ui.Control{
		{Label: "Drop the next response", Command: "fault drop response", Kind: "fault"},
		{Label: "Drop the next request", Command: "fault drop request", Kind: "fault"},
		{Label: "Duplicate the next request", Command: "fault duplicate request", Kind: "fault"},
		{Label: "Delay the next response 5s", Command: "fault delay=5s response", Kind: "fault"},
	}
	for _, b := range st.Brokers {
		if b.Up {
			cs = append(cs, ui.Control{Label: "Crash " + b.Name, Command: "crash " + b.Name, Kind: "broker"})
		} else {
			cs = append(cs, ui.Control{Label: "Restart " + b.Name, Command: "restart " + b.Name, Kind: "broker"})
		}
	}
	switch {
	case len(st.Cut) > 0:
		cs = append(cs, ui.Control{Label: "Heal the network", Command: "heal", Kind: "fault"})
	case len(st.Brokers) > 1:
		for _, b := range st.Brokers {
			cs = append(cs, ui.Control{Label: "Cut " + b.Name + " off", Command: "partition " + b.Name, Kind: "fault"})
		}
	}
	cs = append(cs,
		ui.Control{Label: "Advance 1s", Command: "advance 1s", Kind: "clock"},
		ui.Control{Label: "Advance 1m", Command: "advance 1m", Kind: "clock"},
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
