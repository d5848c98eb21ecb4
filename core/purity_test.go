package core

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestCoreIsPure type-checks every package of core as each build compiles
// it (puritycheck_test.go) and fails on an import, a call or a goroutine
// that would tie the engine to one home or make it nondeterministic, and
// on a map range whose order is left to chance. Every non-test file under
// core must be in at least one build.
func TestCoreIsPure(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range builds {
		pkgs, err := loadBuild(b, "", "./...")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for _, f := range p.GoFiles {
				seen[f] = true
			}
		}
		for _, problem := range purityCheck(pkgs) {
			t.Errorf("%s build: %s", b.name, problem)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir // no package
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		if !seen[filepath.Join(wd, path)] {
			t.Errorf("%s is in none of the builds checked", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d files under core; is the walk rooted in core/?", files)
	}
}

// TestPurityCheckCatches holds the check to a fixture of impure code
// (impureFixture, written into a module of its own): each line marked
// `// want "..."` must be reported with that text, and nothing else may be.
func TestPurityCheckCatches(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module impure\n\ngo 1.26\n", "impure.go": impureFixture} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pkgs, err := loadBuild(builds[0], dir, ".")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{} // file:line -> text
	mark := regexp.MustCompile(`// want "([^"]+)"`)
	for _, p := range pkgs {
		for _, f := range p.GoFiles {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for i, line := range strings.Split(string(data), "\n") {
				if m := mark.FindStringSubmatch(line); m != nil {
					want[f+":"+strconv.Itoa(i+1)] = m[1]
				}
			}
		}
	}
	if len(want) < 10 {
		t.Fatalf("only %d marked lines in the fixture", len(want))
	}
	for _, problem := range purityCheck(pkgs) {
		at := problem[:strings.Index(problem, ": ")]
		at = at[:strings.LastIndex(at, ":")] // file:line:col -> file:line
		text, ok := want[at]
		if !ok {
			t.Errorf("reported, not expected: %s", problem)
			continue
		}
		if !strings.Contains(problem, text) {
			t.Errorf("%s: reported %q, want %q", at, problem, text)
		}
		delete(want, at)
	}
	for at, text := range want {
		t.Errorf("%s: not reported, want %q", at, text)
	}
}
