package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var forbiddenImports = map[string]string{
	"os":         "file or process I/O",
	"os/exec":    "processes",
	"net":        "network I/O",
	"net/http":   "network I/O",
	"syscall":    "system calls",
	"syscall/js": "the browser (belongs in wasm/)",
	"math/rand":  "global randomness",
	"io/ioutil":  "file I/O",
}

var forbiddenCalls = map[string]map[string]bool{
	"time": {"Now": true, "Sleep": true, "After": true, "AfterFunc": true, "Tick": true, "NewTimer": true, "NewTicker": true, "Since": true, "Until": true},
	"rand": {"Int": true, "IntN": true, "Int64": true, "Int64N": true, "Uint32": true, "Uint64": true, "Float64": true, "Perm": true, "Shuffle": true, "N": true, "Int32": true, "Int32N": true, "UintN": true, "Uint64N": true, "Uint32N": true},
}

// TestCoreIsPure reads every non-test Go file under core/ and fails on an
// import or call that would tie the engine to one home or make it
// nondeterministic.
func TestCoreIsPure(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		// storetest and logtest drive testing.T helpers only; they are
		// still held to the rules.
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if why, bad := forbiddenImports[p]; bad {
				t.Errorf("%s imports %q (%s); core must stay pure", fset.Position(imp.Pos()), p, why)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s starts a goroutine; core is driven from one goroutine", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && forbiddenCalls[id.Name][n.Sel.Name] {
					t.Errorf("%s calls %s.%s; time and randomness must be passed in", fset.Position(n.Pos()), id.Name, n.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("only %d files checked; is the walk rooted in core/?", checked)
	}
}
