package core

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// The engine is pure: one goroutine drives it, time and randomness are
// passed in, and it reaches no file, socket or screen. purityCheck proves
// it from what each identifier resolves to (go/types), so an aliased or
// dot-imported package, or a function the list did not name, cannot slip
// by as it could past a check of names in the source.

// allowedImports are the packages core may import directly. An allowlist,
// not a blocklist: fmt and time themselves import os, so what the engine
// reaches through them cannot be judged transitively; what it calls is
// judged by forbidden below.
var allowedImports = []string{
	"bytes", "cmp", "compress/gzip", "container/heap", "container/list",
	"crypto/hmac", "crypto/md5", "crypto/sha256", "crypto/sha512", "embed",
	"encoding/base64", "encoding/binary", "encoding/json", "errors", "fmt",
	"hash", "hash/crc32", "hash/fnv", "io", "iter", "maps", "math",
	"math/bits", "math/rand/v2", "net/netip", "path", "reflect", "regexp",
	"slices", "sort", "strconv", "strings", "time", "unicode",
	"unicode/utf16", "unicode/utf8",
	// Third-party modules: codecs, Kafka's messages, raft.
	"github.com/klauspost/compress/", "github.com/pierrec/lz4/v4",
	"github.com/twmb/franz-go/pkg/kbin", "github.com/twmb/franz-go/pkg/kerr",
	"github.com/twmb/franz-go/pkg/kmsg", "go.etcd.io/raft/v3",
	"google.golang.org/protobuf/proto",
	"github.com/gregor-kafka/gregor/core/",
}

// importAllowed says whether a package of core may import path; testing
// only in the test-helper packages (storetest, logtest).
func importAllowed(pkg, path string) bool {
	if path == "testing" {
		return strings.HasSuffix(pkg, "test")
	}
	for _, a := range allowedImports {
		if path == a || strings.HasSuffix(a, "/") && strings.HasPrefix(path, a) || strings.HasPrefix(path, a+"/") {
			return true
		}
	}
	return false
}

// forbidden names, per package, the objects core may not use, and why; a
// nil set is every package-level object except those in seeded.
var forbidden = map[string]struct {
	names map[string]bool
	why   string
}{
	"time":         {set("Now", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker", "Since", "Until"), "the wall clock; time is passed in"},
	"math/rand":    {nil, "global randomness; a seeded *rand.Rand is passed in"},
	"math/rand/v2": {nil, "global randomness; a seeded *rand.Rand is passed in"},
	"crypto/rand":  {nil, "the system's randomness; randomness is passed in"},
	"fmt":          {set("Print", "Printf", "Println"), "printing to stdout"},
	"os":           {nil, "the process and its files"},
}

// seeded are the math/rand constructors of a deterministic source.
var seeded = set("New", "NewPCG", "NewChaCha8", "NewZipf", "NewSource")

func set(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// sorters are the functions that put what a map range collected in order,
// beside any function of core whose name begins with Sort (share.SortTPs).
var sorters = set("slices.Sort", "slices.SortFunc", "slices.SortStableFunc",
	"sort.Strings", "sort.Ints", "sort.Slice", "sort.SliceStable", "sort.Sort", "sort.Stable")

// unorderedMark excuses a map range whose order cannot matter; it must say why.
const unorderedMark = "//purity:unordered "

// build is one way core is compiled: each file of core is in at least one.
type build struct {
	name string
	env  []string
	tags string
}

var builds = []build{
	{"default", nil, ""},
	{"noquorum", nil, "noquorum"},
	{"js/wasm", []string{"GOOS=js", "GOARCH=wasm"}, "noquorum"},
	{"js/wasm cluster", []string{"GOOS=js", "GOARCH=wasm"}, ""},
}

// loadBuild type-checks the packages matching patterns in the module at
// dir ("": this one) as b compiles them.
func loadBuild(b build, dir string, patterns ...string) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports |
			packages.NeedTypes | packages.NeedSyntax | packages.NeedTypesInfo,
		Env: append(os.Environ(), b.env...),
		Dir: dir,
	}
	if b.tags != "" {
		cfg.BuildFlags = []string{"-tags=" + b.tags}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s build, %s: %v", b.name, p.PkgPath, p.Errors[0])
		}
	}
	return pkgs, nil
}

// purityCheck returns what in pkgs breaks the rules, one line each
// ("file:line: ..."), sorted.
func purityCheck(pkgs []*packages.Package) []string {
	var out []string
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			out = append(out, checkFile(p, f)...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func checkFile(p *packages.Package, f *ast.File) []string {
	var out []string
	report := func(pos token.Pos, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", p.Fset.Position(pos), fmt.Sprintf(format, args...)))
	}
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		if !importAllowed(p.PkgPath, path) {
			report(imp.Pos(), "imports %q, which core may not", path)
		}
	}
	// A mark excuses the range on its line, or, on a line of its own,
	// the range on the next line.
	src, _ := os.ReadFile(p.Fset.Position(f.Pos()).Filename)
	lines := strings.Split(string(src), "\n")
	trailing, above := map[int]bool{}, map[int]bool{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, unorderedMark) && strings.TrimSpace(c.Text[len(unorderedMark):]) != "" {
				at := p.Fset.Position(c.Pos())
				if at.Line <= len(lines) && strings.TrimSpace(lines[at.Line-1][:at.Column-1]) == "" {
					above[at.Line+1] = true
				} else {
					trailing[at.Line] = true
				}
			}
		}
	}
	var parents []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			parents = parents[:len(parents)-1]
			return true
		}
		switch n := n.(type) {
		case *ast.GoStmt:
			report(n.Pos(), "starts a goroutine; core is driven from one goroutine")
		case *ast.Ident:
			if why := forbiddenUse(p.TypesInfo.Uses[n]); why != "" {
				report(n.Pos(), "uses %s: %s", n.Name, why)
			}
		case *ast.RangeStmt:
			line := p.Fset.Position(n.Pos()).Line
			if rangesOverMap(p.TypesInfo, n.X) && !trailing[line] && !above[line] && !sortsAfter(p.TypesInfo, n, parents) {
				report(n.Pos(), "ranges over a map in no order: sort what it collects, or say why order cannot matter (%s<why>)", unorderedMark)
			}
		}
		parents = append(parents, n)
		return true
	})
	return out
}

// forbiddenUse says why obj may not be used in core, or "".
func forbiddenUse(obj types.Object) string {
	switch obj := obj.(type) {
	case *types.Builtin:
		if obj.Name() == "print" || obj.Name() == "println" {
			return "printing to stderr"
		}
	case *types.Func, *types.Var:
		if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
			return "" // a method, a field or a local
		}
		rule, ok := forbidden[obj.Pkg().Path()]
		if !ok || rule.names != nil && !rule.names[obj.Name()] || rule.names == nil && seeded[obj.Name()] {
			return ""
		}
		return rule.why
	}
	return ""
}

// rangesOverMap says whether a range over x visits a map's entries: the
// map itself, or maps.Keys, maps.Values or maps.All of one.
func rangesOverMap(info *types.Info, x ast.Expr) bool {
	if t := info.TypeOf(x); t != nil {
		if _, ok := t.Underlying().(*types.Map); ok {
			return true
		}
	}
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return false
	}
	fn, ok := calleeName(info, call)
	return ok && (fn == "maps.Keys" || fn == "maps.Values" || fn == "maps.All")
}

// calleeName is "pkg.Func" for a call of a package-level function.
func calleeName(info *types.Info, call *ast.CallExpr) (string, bool) {
	var id *ast.Ident
	switch fun := call.Fun.(type) {
	case *ast.Ident:
		id = fun
	case *ast.SelectorExpr:
		id = fun.Sel
	case *ast.IndexExpr: // an explicit instantiation
		if sel, ok := fun.X.(*ast.SelectorExpr); ok {
			id = sel.Sel
		}
	}
	if id == nil {
		return "", false
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Parent() != fn.Pkg().Scope() {
		return "", false
	}
	return fn.Pkg().Path() + "." + fn.Name(), true
}

// sortsAfter says whether the statements after loop in its block sort a
// slice the loop appends to.
func sortsAfter(info *types.Info, loop *ast.RangeStmt, parents []ast.Node) bool {
	collected := map[string]bool{}
	ast.Inspect(loop.Body, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && len(as.Rhs) == 1 {
			if call, ok := as.Rhs[0].(*ast.CallExpr); ok {
				if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "append" && len(call.Args) > 0 && types.ExprString(call.Args[0]) == types.ExprString(as.Lhs[0]) {
					collected[types.ExprString(as.Lhs[0])] = true
				}
			}
		}
		return true
	})
	if len(collected) == 0 || len(parents) == 0 {
		return false
	}
	var after []ast.Stmt
	switch b := parents[len(parents)-1].(type) {
	case *ast.BlockStmt:
		after = b.List
	case *ast.CaseClause:
		after = b.Body
	case *ast.CommClause:
		after = b.Body
	}
	i := slices.IndexFunc(after, func(s ast.Stmt) bool { return s == loop })
	if i < 0 {
		return false
	}
	found := false
	for _, s := range after[i+1:] {
		ast.Inspect(s, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return !found
			}
			if fn, ok := calleeName(info, call); ok && (sorters[shortName(fn)] || strings.HasPrefix(strings.ToLower(fn[strings.LastIndex(fn, ".")+1:]), "sort")) {
				arg := call.Args[0]
				if conv, ok := arg.(*ast.CallExpr); ok && len(conv.Args) == 1 { // sort.Sort(byName(s))
					arg = conv.Args[0]
				}
				found = found || collected[types.ExprString(arg)]
			}
			return !found
		})
	}
	return found
}

// shortName is "pkg.Func" from "import/path/pkg.Func".
func shortName(fn string) string { return fn[strings.LastIndex(fn, "/")+1:] }
