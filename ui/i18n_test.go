package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/gregor-kafka/gregor/core/sim"
)

// help is the command reference lessons/play gives the playground's page
// (Page.Help): the simulator's usage table.
func help() []Field {
	var fs []Field
	for _, u := range sim.Commands() {
		fs = append(fs, Field{u.Synopsis, u.Does})
	}
	return fs
}

// lookups finds the English texts the sources look up: the string
// literal given to T, Tf, Tr, Trf or N, in ui/, lessons/play/, wasm/ and
// server/console/
// (generated _templ.go files left out: their .templ is read).
var lookups = regexp.MustCompile(`\b(?:T|Tf|Tr|Trf)\([^,()"]*(?:\([^()]*\))?[^,()"]*,\s*("(?:[^"\\]|\\.)*")|\bN\(("(?:[^"\\]|\\.)*")\)`)

func usedTexts(t *testing.T) map[string][]string {
	t.Helper()
	used := map[string][]string{}
	for _, dir := range []string{".", "../lessons/play", "../wasm", "../server/console"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			if !(strings.HasSuffix(f, ".templ") || strings.HasSuffix(f, ".go")) || strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range lookups.FindAllStringSubmatch(string(src), -1) {
				lit := m[1] + m[2]
				s, err := strconv.Unquote(lit)
				if err != nil {
					t.Fatalf("%s: %s: %v", f, lit, err)
				}
				used[s] = append(used[s], f)
			}
		}
	}
	for _, w := range append(markWords, roleWords...) {
		used[w] = append(used[w], "markWords, roleWords")
	}
	for _, h := range help() { // every command's description (TestCommandReference)
		used[h.Value] = append(used[h.Value], "Page.Help, from sim.Commands")
	}
	if len(used) < 100 {
		t.Fatalf("found only %d texts looked up: the scan is broken", len(used))
	}
	return used
}

var verbs = regexp.MustCompile(`%(?:\[\d+\])?[-+# 0]*\d*(?:\.\d+)?[a-zA-Z%]`)

// sortedVerbs are a format's verbs, without their argument indexes.
func sortedVerbs(s string) []string {
	vs := verbs.FindAllString(s, -1)
	for i, v := range vs {
		vs[i] = regexp.MustCompile(`\[\d+\]`).ReplaceAllString(v, "")
	}
	slices.Sort(vs)
	return vs
}

// TestCatalogs holds every catalog to the texts the page shows: each text
// translated, differently from the English unless it is in Same, with
// the same format verbs; and no entry that nothing uses.
func TestCatalogs(t *testing.T) {
	used := usedTexts(t)
	for lang, cat := range catalogs {
		for en, where := range used {
			tr, ok := cat[en]
			switch {
			case !ok:
				t.Errorf("%s: no translation of %q (used in %s)", lang, en, where[0])
			case strings.TrimSpace(tr) == "":
				t.Errorf("%s: empty translation of %q", lang, en)
			case tr == en && !Same[en]:
				t.Errorf("%s: %q is the same as the English (add it to Same if it must be)", lang, en)
			case tr != en && Same[en]:
				t.Errorf("%s: %q is in Same but translated as %q", lang, en, tr)
			case !slices.Equal(sortedVerbs(en), sortedVerbs(tr)):
				t.Errorf("%s: %q has verbs %v, its translation %q has %v", lang, en, sortedVerbs(en), tr, sortedVerbs(tr))
			}
		}
		for en := range cat {
			if _, ok := used[en]; !ok {
				t.Errorf("%s: %q is translated but never looked up", lang, en)
			}
		}
	}
	for en := range Same {
		if _, ok := used[en]; !ok {
			t.Errorf("Same lists %q, which is never looked up", en)
		}
	}
}

// TestCommandReference renders the playground's command reference in
// every language: each command's synopsis as the engine reads it, and its
// description in the page's language (TestCatalogs holds every one to a
// translation).
func TestCommandReference(t *testing.T) {
	for _, lang := range Languages {
		var b strings.Builder
		if err := InLang(lang, reference(help())).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		html := b.String()
		for _, h := range help() {
			if !strings.Contains(html, templ.EscapeString(h.Name)) {
				t.Errorf("%s: the reference lacks %q", lang, h.Name)
			}
			if d := Tr(lang, h.Value); !strings.Contains(html, templ.EscapeString(d)) || lang != "en" && d == h.Value {
				t.Errorf("%s: the reference does not describe %q in its language (%q)", lang, h.Name, d)
			}
		}
	}
}

func TestPickLang(t *testing.T) {
	for prefs, want := range map[string]string{
		"":                                    "en",
		"zh-CN,zh;q=0.9,en;q=0.8":             "zh",
		"en-US,en;q=0.9,zh-CN;q=0.8":          "en",
		"fr-FR,fr;q=0.9,zh-TW;q=0.5":          "zh",
		"fr-FR,de;q=0.9":                      "en",
		"zh-Hans":                             "zh",
		"de, en;q=0.2, zh;q=0.7":              "zh",
		"zh;q=0, en;q=0.1":                    "en",
		"ZH-cn":                               "zh",
		"en-GB":                               "en",
		"pt-BR,pt;q=0.9,en-US;q=0.8,zh;q=0.9": "zh",
	} {
		if got := PickLang(prefs); got != want {
			t.Errorf("PickLang(%q) = %q, want %q", prefs, got, want)
		}
	}
}

// TestWordsInLines: a mark or a diagram line is translated by its leading
// word, the names and numbers after it kept.
func TestWordsInLines(t *testing.T) {
	zh := context.WithValue(context.Background(), langKey{}, "zh")
	for in, want := range map[string]string{
		"delayed 5s":     "被延迟 5s",
		"in flight #3":   "传输中 #3",
		"duplicate copy": "重复的那一份",
		"duplicated":     "被重复",
		"held #2":        "被扣留 #2",
		"deliveredish":   "deliveredish",
	} {
		if got := markText(zh, in); got != want {
			t.Errorf("markText(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"crashed":                       "已崩溃",
		"follower t-0, out of ISR":      "follower t-0, 不在 ISR 中",
		"transaction coordinator (app)": "事务协调者 (app)",
		"producer":                      "生产者",
		"producers-of-things":           "producers-of-things",
		"★ leader t-0 e1":               "★ leader t-0 e1",
		"share group workers":           "共享组 workers",
		"group g1: Stable":              "消费者组 g1: Stable",
	} {
		if got := roleText(zh, in); got != want {
			t.Errorf("roleText(%q) = %q, want %q", in, got, want)
		}
	}
	if got := markText(context.Background(), "delayed 5s"); got != "delayed 5s" {
		t.Errorf("in English the mark reads %q", got)
	}
}
