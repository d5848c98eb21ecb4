package lessons

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "regenerate the expected output of every lesson")

// TestLessons replays every lesson and diffs what the engine printed with
// what the script expects.
func TestLessons(t *testing.T) {
	written := 0
	for _, m := range Catalog {
		if !Available(m.Slug) {
			continue
		}
		written++
		t.Run(m.Slug, func(t *testing.T) {
			l, err := Load(m.Slug)
			if err != nil {
				t.Fatal(err)
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
	if written == 0 {
		t.Fatal("no lesson scripts found")
	}
}

// TestParseFormatRoundTrip: a script survives Parse then Format unchanged.
func TestParseFormatRoundTrip(t *testing.T) {
	for _, m := range Catalog {
		if !Available(m.Slug) {
			continue
		}
		raw, _ := scripts.ReadFile("scripts/" + m.Slug + ".txt")
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
