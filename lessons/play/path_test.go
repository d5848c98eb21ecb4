package play

import (
	"slices"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/lessons"
	"github.com/gregor-kafka/gregor/lessons/link"
	"github.com/gregor-kafka/gregor/ui"
)

// TestPathRoundTrip: every page's links are paths that FromPath reads back
// to the same session: lesson, step, language, seed, the learner's steps
// and answers; the lesson as written has no query at all.
func TestPathRoundTrip(t *testing.T) {
	for _, q := range []string{
		"lesson=segments&lang=en",
		"lesson=segments&step=7&lang=zh",
		"lesson=idempotent-producer&step=9&seed=5&actions=2:crash+b0,4:fault+drop+response&lang=en",
		"lesson=idempotent-producer&step=8&answers=7:1&lang=zh",
		"embed=1&lesson=segments&step=3&lang=zh",
		"playground=1&cmds=broker,topic+orders+partitions=2&lang=en",
		"playground=1&step=1&cmds=broker,topic+orders+partitions=2&seed=3&lang=zh",
	} {
		s := Parse(q)
		if s.Err != "" {
			t.Fatalf("%s: %s", q, s.Err)
		}
		href := s.Href(s.Pos)
		path, query, _ := strings.Cut(href, "?")
		back, ok := link.FromPath(path, query)
		if !ok {
			t.Errorf("%s: its link %s is no page", q, href)
			continue
		}
		if got, want := Parse(back).Query(s.Pos), s.Query(s.Pos); got != want {
			t.Errorf("%s: link %s reads back as %s, want %s", q, href, got, want)
		}
	}
	l, _ := lessons.Load("segments")
	if got := Parse("lesson=segments&step=3&lang=zh").Href(3); got != "zh/segments/3/" {
		t.Errorf("segments step 3 as written links to %q", got)
	}
	if got := Parse("lesson=segments&lang=en").Href(1); got != "en/segments/" {
		t.Errorf("segments step 1 links to %q", got)
	}
	if got := Canonical("lesson=segments&step=999&lang=en"); got != "en/segments/999/" {
		t.Errorf("past the end: %q (the lesson has %d steps)", got, len(l.Steps))
	}
	for q, want := range map[string]string{"": "en/", "lang=zh": "zh/", "trace=1&step=2": "?trace=1&step=2", "lesson=nope&lang=en": "?lesson=nope&lang=en"} {
		if got := Canonical(q); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestLanguagesAgree: a path's language is one a page is shown in.
func TestLanguagesAgree(t *testing.T) {
	if !slices.Equal(link.Languages, ui.Languages) {
		t.Errorf("lessons/link's languages %v, ui's %v", link.Languages, ui.Languages)
	}
}

// TestSavedVersion: a link saved from the lesson as it is replays; one
// saved from an earlier version says so and offers the lesson as it is
// now, and keeps saying so at its own address.
func TestSavedVersion(t *testing.T) {
	l, err := lessons.Load("segments")
	if err != nil {
		t.Fatal(err)
	}
	cur := Parse("lesson=segments&step=3&lang=zh&actions=2:crash+b0&v=" + l.Version)
	if cur.Stale != "" || cur.Page().StaleHref != "" || cur.Page().Step == nil {
		t.Errorf("a link of the current version is not replayed: stale %q", cur.Stale)
	}
	if got := cur.Href(3); strings.Contains(got, "v=") {
		t.Errorf("the current version stays in the address: %s", got)
	}
	old := Parse("lesson=segments&step=3&lang=zh&actions=2:crash+b0&v=0000000000000000")
	p := old.Page()
	if old.Stale != "0000000000000000" || p.StaleHref != "zh/segments/" || p.Step != nil {
		t.Errorf("an earlier version: stale %q, offers %q, replayed %v", old.Stale, p.StaleHref, p.Step != nil)
	}
	if got := old.Href(3); !strings.Contains(got, "v=0000000000000000") {
		t.Errorf("a stale link loses its version in the address: %s", got)
	}
}
