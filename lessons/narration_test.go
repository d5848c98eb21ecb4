package lessons

import (
	"strings"
	"testing"
	"unicode"
)

// languages are the tags every lesson is translated into, beside English.
var languages = []string{"zh"}

// written loads every lesson whose script exists.
func written(t *testing.T) []*Lesson {
	t.Helper()
	var ls []*Lesson
	for _, m := range Catalog {
		l, err := Load(m.Slug)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	return ls
}

// TestNarration: a learner reading any step of any lesson is told what
// happened, and the last step ends with a recap of 3 to 5 points (one
// paragraph each). Every lesson is also told in each of languages, and in
// any other language it has begun: every step, the recap paragraph for
// paragraph, and the title and about of its Catalog entry. A translation
// that is missing, is the English text itself, or (zh) has no Chinese
// character fails here.
func TestNarration(t *testing.T) {
	for _, l := range written(t) {
		m := l.Meta
		langs := map[string]bool{}
		for _, lang := range languages {
			langs[lang] = true
		}
		for _, st := range l.Steps {
			for lang := range st.Translations {
				langs[lang] = true
			}
		}
		for lang := range l.TrailerTranslations {
			langs[lang] = true
		}
		for _, st := range l.Steps {
			if st.Narration == "" {
				t.Errorf("%s line %d: %q has no narration", m.Slug, st.Line, st.Command)
			}
			for lang := range langs {
				if err := translated(st.Narration, st.Translations[lang], lang); err != "" {
					t.Errorf("%s line %d: %q: [%s] narration %s", m.Slug, st.Line, st.Command, lang, err)
				}
			}
		}
		if n := len(paragraphs(l.Trailer)); n < 3 || n > 5 {
			t.Errorf("%s: the recap after the last command has %d points, want 3 to 5", m.Slug, n)
		}
		for lang := range langs {
			tr := l.TrailerTranslations[lang]
			if err := translated(l.Trailer, tr, lang); err != "" {
				t.Errorf("%s: the recap's [%s] narration %s", m.Slug, lang, err)
			}
			if got, want := len(paragraphs(tr)), len(paragraphs(l.Trailer)); tr != "" && got != want {
				t.Errorf("%s: the recap has %d [%s] paragraphs for %d English ones", m.Slug, got, lang, want)
			}
			h := m.Headings[lang]
			if err := translated(m.Title, h.Title, lang); err != "" {
				t.Errorf("%s: the [%s] title %s", m.Slug, lang, err)
			}
			if err := translated(m.About, h.About, lang); err != "" {
				t.Errorf("%s: the [%s] about %s", m.Slug, lang, err)
			}
		}
	}
}

// translated says what is wrong with tr as the lang translation of
// english: missing, the English text itself, or (for zh) without a
// single Chinese character. "" when nothing is.
func translated(english, tr, lang string) string {
	switch {
	case strings.TrimSpace(tr) == "":
		return "is missing"
	case tr == english:
		return "is the English text"
	case lang == "zh" && !strings.ContainsFunc(tr, isHan):
		return "has no Chinese character: " + tr
	}
	return ""
}

func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

func paragraphs(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\n\n") {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// TestTranslationsParse: `#[TAG]` lines go to that language, paragraphs
// and all, and Format writes them back unchanged.
func TestTranslationsParse(t *testing.T) {
	script := `#!seed: 3

# The broker starts.
#[zh] 代理启动。
#[zh]
#[zh] 第二段。
broker
----
b0           broker 0 started

# [not a tag] stays English.
advance 1s
----

# Recap.
#[de] Zusammenfassung.
`
	l, err := Parse(script)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Steps[0].Narration; got != "The broker starts." {
		t.Errorf("English narration %q", got)
	}
	if got := l.Steps[0].Translations["zh"]; got != "代理启动。\n\n第二段。" {
		t.Errorf("zh narration %q", got)
	}
	if got := l.Steps[1].Narration; got != "[not a tag] stays English." || len(l.Steps[1].Translations) != 0 {
		t.Errorf("step 2: %q %v", got, l.Steps[1].Translations)
	}
	if l.Trailer != "Recap." || l.TrailerTranslations["de"] != "Zusammenfassung." {
		t.Errorf("trailer %q %v", l.Trailer, l.TrailerTranslations)
	}
	if got := l.Format([]string{"b0           broker 0 started", ""}); got != script {
		t.Errorf("Format(Parse(script)):\n%s", got)
	}
}

// TestNextAfter walks the catalog: each lesson leads to the next one, and
// the last to none.
func TestNextAfter(t *testing.T) {
	for i, m := range Catalog {
		next := NextAfter(m.Slug)
		if i == len(Catalog)-1 {
			if next != nil {
				t.Errorf("after the last lesson %s: %s", m.Slug, next.Slug)
			}
			continue
		}
		if next == nil || next.Slug != Catalog[i+1].Slug {
			t.Errorf("after %s: got %v, want %s", m.Slug, next, Catalog[i+1].Slug)
		}
	}
	if NextAfter("no-such-lesson") != nil {
		t.Error("a slug not in the catalog has a next lesson")
	}
}

// TestTranslated: what TestNarration rejects as a translation.
func TestTranslated(t *testing.T) {
	for _, tc := range []struct {
		english, tr string
		ok          bool
	}{
		{"The broker starts.", "broker 启动。", true},
		{"The broker starts.", "", false},
		{"The broker starts.", "  \n", false},
		{"The broker starts.", "The broker starts.", false},
		{"The broker starts.", "broker starts (leo=1 hw=1).", false},
		{"acks=1", "acks=1", false},
	} {
		if got := translated(tc.english, tc.tr, "zh") == ""; got != tc.ok {
			t.Errorf("translated(%q, %q) accepted=%v, want %v", tc.english, tc.tr, got, tc.ok)
		}
	}
}
