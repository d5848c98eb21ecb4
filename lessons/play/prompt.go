package play

import (
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/sim"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// Try inserts the learner's command after the current step, runs it on t
// and keeps it only if the engine accepted it: a rejected command (a typo,
// a missing argument) does not enter the timeline or the URL. It returns
// what the engine said of a rejected command, "" if it was kept.
func (s *Session) Try(cmd string, t *Timeline) string {
	before := len(s.Items)
	s.Insert(cmd)
	if len(s.Items) == before || s.Err != "" {
		return ""
	}
	steps := t.Run(s.Seed, s.commands(), s.Pos)
	if st := steps[s.Pos-1]; st.Failed {
		s.Remove(s.Pos)
		return st.Out
	}
	return ""
}

// commandReference is the playground's command reference (ui.Page.Help):
// the simulator's usage table, a synopsis and what it does per command.
var commandReference = func() []ui.Field {
	var fs []ui.Field
	for _, u := range sim.Commands() {
		fs = append(fs, ui.Field{Name: u.Synopsis, Value: u.Does})
	}
	return fs
}()

// Complete completes the last word of a command line being typed at the
// current step: a command name first, then the names in the world (its
// brokers, topics and partitions, as st shows them, and the clients the
// timeline created so far). It returns the line completed as far as the
// candidates agree (with a space after a unique one) and the candidates.
func (s *Session) Complete(line string, st view.World) (string, []string) {
	start := strings.LastIndexAny(line, " \t") + 1
	word := line[start:]
	var words []string
	if strings.TrimSpace(line[:start]) == "" {
		for _, u := range sim.Commands() {
			words = append(words, u.Name)
		}
	} else if !strings.Contains(word, "=") {
		words = s.names(st)
	}
	var match []string
	for _, w := range words {
		if strings.HasPrefix(w, word) && !slices.Contains(match, w) {
			match = append(match, w)
		}
	}
	slices.Sort(match)
	switch len(match) {
	case 0:
		return line, nil
	case 1:
		return line[:start] + match[0] + " ", match
	}
	prefix := match[0]
	for _, m := range match[1:] {
		for !strings.HasPrefix(m, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	return line[:start] + prefix, match
}

// clientCommands are the commands whose first argument names a new client.
var clientCommands = []string{"producer", "consumer", "member"}

// names are the actors, topics and partitions a command can name, sorted.
func (s *Session) names(st view.World) []string {
	var names []string
	for _, it := range s.Items[:s.Pos] {
		f := strings.Fields(it.Cmd)
		if len(f) > 1 && slices.Contains(clientCommands, f[0]) {
			names = append(names, f[1])
		}
	}
	for _, b := range st.Brokers {
		names = append(names, b.Name)
		for _, p := range b.Partitions {
			names = append(names, p.Name)
			if i := strings.LastIndexByte(p.Name, '-'); i > 0 {
				names = append(names, p.Name[:i])
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}
