// Package link is the playground's links, the same in every home (the
// native server, a static host, the Worker): the path of each page. It is
// small and links nothing of the engine, so that the Worker can use it.
//
// # Paths
//
// Every home of the playground (the native server, a static host, the
// Worker) answers the same paths, relative to the site's root (the page's
// <base href>), so that a link copied from one opens in the others:
//
//	LANG/                     the lesson list
//	LANG/SLUG/                a lesson at its first step
//	LANG/SLUG/N/              a lesson at step N
//	LANG/playground/          the playground (its step and cmds in the query)
//	embed/LANG/SLUG/[N/]      a lesson's compact view, for an iframe
//
// The rest of a session (seed, actions, answers, cmds) stays in the query
// (see lessons/play's URL section). A static host holds one prerendered
// page per lesson, step and language; a path it lacks (a step past the
// end, a step the learner's own steps added) gets its 404 page, which is
// the same page with nothing prerendered, and the wasm renders the path.
// The query URLs of before (?lesson=SLUG&step=N&lang=L) keep working: the
// native server renders them, and the wasm writes the path into the
// address bar.
package link

import (
	"slices"
	"strconv"
	"strings"
)

// Languages are the languages a page is shown in, the default first: the
// first part of every path (ui.Languages, which play's test holds equal).
var Languages = []string{"en", "zh"}

// Embed is the query parameter that marks an embed's session (the
// compact view).
const Embed = "embed"

// VersionParam is the query parameter of a saved lesson link that names
// the version of the lesson's script it was saved from (lessons.Version;
// lessons/saved).
const VersionParam = "v"

// FromPath is the query of a path (relative to the site's root, without
// the leading slash) and its raw query: the session both name, with the
// path's lesson, step and language taking the place of any in the query.
// The site's root, and a class's join page (join/CODE, whose pages keep
// their address and move in the query), are the query as it is. ok is
// false for a path that names no page.
func FromPath(path, rawQuery string) (query string, ok bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if parts[0] == "" || parts[0] == "index.html" || parts[0] == "join" {
		return rawQuery, true
	}
	var fixed []string
	if parts[0] == Embed {
		fixed, parts = append(fixed, Embed+"=1"), parts[1:]
		if len(parts) < 2 || parts[1] == "playground" {
			return "", false // an embed shows a lesson
		}
	}
	if len(parts) == 0 || !slices.Contains(Languages, parts[0]) || len(parts) > 3 {
		return "", false
	}
	lang, parts := parts[0], parts[1:]
	playground := false
	switch {
	case len(parts) == 0:
	case parts[0] == "playground" && len(parts) == 1:
		playground = true
		fixed = append(fixed, "playground=1")
	case ValidSlug(parts[0]):
		fixed = append(fixed, "lesson="+parts[0])
		if len(parts) == 2 {
			n, err := strconv.Atoi(parts[1])
			if err != nil || n < 1 || strconv.Itoa(n) != parts[1] {
				return "", false
			}
			fixed = append(fixed, "step="+parts[1])
		}
	default:
		return "", false
	}
	fixed = append(fixed, "lang="+lang)
	for _, kv := range strings.Split(strings.TrimPrefix(rawQuery, "?"), "&") {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "", "lesson", "playground", "lang", Embed:
		case "step":
			if playground { // a lesson's step is its path's
				fixed = append(fixed, kv)
			}
		default:
			fixed = append(fixed, kv)
		}
	}
	return strings.Join(fixed, "&"), true
}

// ValidSlug reports whether s could name a lesson: lower-case letters,
// digits and dashes, as lessons.Catalog's slugs are.
func ValidSlug(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
