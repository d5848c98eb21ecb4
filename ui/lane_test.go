package ui

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestUIReadsOnlyViews holds ui to its lane: it renders what core/view
// and core/describe say of a step, and reaches no other part of the
// engine (the simulator, the broker, the coordinators) from its own code.
func TestUIReadsOnlyViews(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{
		"github.com/gregor-kafka/gregor/core/view":     true,
		"github.com/gregor-kafka/gregor/core/describe": true,
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(path, "github.com/gregor-kafka/gregor/") && !allowed[path] {
				t.Errorf("%s imports %s; ui renders from core/view and core/describe only", name, path)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked", checked)
	}
}
