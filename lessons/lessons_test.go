package lessons

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/sim"
)

var rewrite = flag.Bool("rewrite", false, "regenerate the expected output of every lesson")

// TestLessons replays every lesson and diffs what the engine printed with
// what the script expects.
func TestLessons(t *testing.T) {
	for _, m := range Catalog {
		t.Run(m.Slug, func(t *testing.T) {
			l, err := Load(m.Slug)
			if err != nil {
				t.Fatal(err)
			}
			if st, ok := l.StartsCluster(); ok && !sim.HasQuorum {
				t.Skipf("line %d: %q starts a multi-broker world, which needs the full build (not -tags noquorum)", st.Line, st.Command)
			}
			_, outs := l.Replay(-1)
			if *rewrite {
				path := filepath.Join("scripts", m.Slug+".txt")
				if err := os.WriteFile(path, []byte(l.Format(outs)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for i, st := range l.Steps {
				if outs[i] != st.Output {
					t.Errorf("line %d: %s\n--- want\n%s\n--- got\n%s", st.Line, st.Command, st.Output, outs[i])
				}
				if strings.Contains(outs[i], "error: unknown command") {
					t.Errorf("line %d: lesson uses an unknown command", st.Line)
				}
			}
		})
	}
}

// TestCatalogScripts: every Catalog entry has a script, and every script
// an entry (the page lists Catalog and fetches scripts by slug).
func TestCatalogScripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("scripts", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no lesson scripts found (%v)", err)
	}
	listed := map[string]bool{}
	for _, m := range Catalog {
		if listed[m.Slug] {
			t.Errorf("%s is in Catalog twice", m.Slug)
		}
		listed[m.Slug] = true
		if _, err := Script(m.Slug); err != nil {
			t.Error(err)
		}
	}
	for _, f := range files {
		if slug := strings.TrimSuffix(filepath.Base(f), ".txt"); !listed[slug] {
			t.Errorf("scripts/%s.txt has no Catalog entry", slug)
		}
	}
}

// TestParseFormatRoundTrip: a script survives Parse then Format unchanged.
func TestParseFormatRoundTrip(t *testing.T) {
	for _, m := range Catalog {
		raw, err := Script(m.Slug)
		if err != nil {
			t.Fatal(err)
		}
		l, err := Parse(string(raw))
		if err != nil {
			t.Fatal(err)
		}
		outs := make([]string, len(l.Steps))
		for i, st := range l.Steps {
			outs[i] = st.Output
		}
		if got := l.Format(outs); got != string(raw) {
			t.Errorf("%s: Format(Parse(script)) differs from the script; run go test ./lessons -rewrite", m.Slug)
		}
	}
}

// TestReadmeCountsLessons: the playground guide says how many lessons it
// serves; it is the Catalog's length.
func TestReadmeCountsLessons(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "docs", "playground.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("serves %d lessons", len(Catalog))
	if !strings.Contains(string(readme), want) {
		t.Errorf("docs/playground.md does not say %q", want)
	}
}
