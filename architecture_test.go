package gregor

import (
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureMap holds ARCHITECTURE.md to the tree. The package map
// (the table under "## Package map", one row per package, its path in
// backticks in the first column, "." for the root) must name exactly the
// packages `go list` finds: those of ./... plus the js/wasm-only ones under
// ./wasm/... (listed with GOOS=js GOARCH=wasm). And every backticked
// file path in the document that contains "/" and ends in ".go" must
// exist.
func TestArchitectureMap(t *testing.T) {
	doc, err := os.ReadFile("ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)

	tree := map[string]bool{}
	for _, run := range []struct {
		env     []string
		pattern string
	}{{nil, "./..."}, {[]string{"GOOS=js", "GOARCH=wasm"}, "./wasm/..."}} {
		cmd := exec.Command("go", "list", "-e", "-f", "{{.ImportPath}}", run.pattern)
		cmd.Env = append(os.Environ(), run.env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list %s: %v", run.pattern, err)
		}
		for _, path := range strings.Fields(string(out)) {
			rel := strings.TrimPrefix(strings.TrimPrefix(path, "github.com/gregor-kafka/gregor"), "/")
			if rel == "" {
				rel = "."
			}
			tree[rel] = true
		}
	}

	_, section, ok := strings.Cut(text, "\n## Package map\n")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## Package map" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")
	mapped := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		mapped[m[1]] = true
	}
	if len(mapped) < 10 {
		t.Fatalf("only %d packages found in the package map; is it still a table with `path` in the first column?", len(mapped))
	}

	for _, p := range slices.Sorted(maps.Keys(tree)) {
		if !mapped[p] {
			t.Errorf("package %s is in the tree but not in ARCHITECTURE.md's package map", p)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(mapped)) {
		if !tree[p] {
			t.Errorf("ARCHITECTURE.md's package map names %s, which is no package of the module", p)
		}
	}

	for _, m := range regexp.MustCompile("`([^`\\s]+/[^`\\s]+\\.go)`").FindAllStringSubmatch(text, -1) {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("ARCHITECTURE.md names %s, which does not exist", m[1])
		}
	}
}
