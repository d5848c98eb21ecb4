package play

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/ui"
)

// A session's paths: lessons/link's Paths, the scheme every home answers.

// Path is the session at step pos as a path and query (see Paths): the
// path names the language, lesson and step, the query what else the
// session holds that differs from the lesson as written (a seed of its
// own, the learner's steps, answers).
func (s *Session) Path(pos int) string {
	lang := ui.Lang(s.Lang)
	var p string
	var extra []string
	switch {
	case s.Playground:
		p = lang + "/playground/"
		if pos > 0 && pos != len(s.Items) {
			extra = append(extra, fmt.Sprintf("step=%d", pos))
		}
		if s.Seed != 1 {
			extra = append(extra, fmt.Sprintf("seed=%d", s.Seed))
		}
	case s.Lesson != nil:
		p = lang + "/" + s.Lesson.Slug + "/"
		if s.Embed {
			p = link.Embed + "/" + p
		}
		if pos > 1 {
			p += strconv.Itoa(pos) + "/"
		}
		if s.Seed != s.Lesson.Seed {
			extra = append(extra, fmt.Sprintf("seed=%d", s.Seed))
		}
	default:
		return lang + "/"
	}
	q := parseQuery(s.Query(pos))
	for _, k := range []string{"actions", "cmds", "answers", link.VersionParam} {
		if v := q[k]; v != "" {
			extra = append(extra, k+"="+v)
		}
	}
	if len(extra) > 0 {
		p += "?" + strings.Join(extra, "&")
	}
	return p
}

// Canonical is the path (see Paths) of what a query shows: the lesson
// list, a lesson or the playground at its step; a query naming none of
// them (an opened trace, a lesson that does not exist) is kept as a
// query.
func Canonical(rawQuery string) string {
	if IsTrace(rawQuery) {
		return "?" + rawQuery
	}
	s := Parse(rawQuery)
	if IsIndex(rawQuery) {
		return ui.Lang(s.Lang) + "/"
	}
	if s.Err != "" || (s.Lesson == nil && !s.Playground) {
		return "?" + rawQuery
	}
	pos := s.Pos
	if s.PastEnd {
		if n, err := strconv.Atoi(parseQuery(rawQuery).get("step")); err == nil {
			pos = n // keep the step asked for: the page says it is past the end
		}
	}
	return s.Path(pos)
}

// IsEmbed reports whether a query asks for a lesson's compact view.
func IsEmbed(rawQuery string) bool { return parseQuery(rawQuery).get(link.Embed) != "" }
