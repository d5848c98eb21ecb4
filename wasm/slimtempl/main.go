// Command slimtempl prepares the browser build's copy of templ without
// net/http. templ's runtime imports net/http only for its HTTP handlers
// (templ.Handler, the CSS middleware) and to flush an http.Flusher; the
// ui never uses them in the browser, but net/http's package init keeps
// the HTTP client, TLS and x509 in the wasm: 2 MB of its 11 MB, 500 KB of
// 2.6 MB gzipped.
//
//	go run ./wasm/slimtempl DIR
//
// copies the templ module the build uses into DIR/templ, drops from its
// root and runtime packages every declaration that needs net/http (an
// http.Flusher becomes the same interface written out), and writes
// DIR/go.work, a workspace of this module with templ replaced by the copy.
// `make wasm` and wasm/browsertest build with GOWORK=DIR/go.work; nothing
// else changes: go.mod, the generator and the server keep templ as it is.
// A declaration the ui does use would fail the build, not pass silently.
// The copy also has no development mode (dropDevMode), no SHA-256 (the
// script and CSS-class hashing the ui does not use) and compiles no
// regular expression (slimRegexps).
package main

import (
	"bytes"
	_ "embed"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: slimtempl DIR")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "slimtempl:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	// A fresh module cache lists a module it has not downloaded with no
	// Dir: fetch it first, as a build would.
	if out, err := exec.Command("go", "mod", "download", "github.com/a-h/templ").CombinedOutput(); err != nil {
		return fmt.Errorf("go mod download templ: %w: %s", err, out)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.Version}} {{.GoVersion}}", "github.com/a-h/templ").Output()
	if err != nil {
		return fmt.Errorf("go list templ: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return fmt.Errorf("go list templ: no module directory in %q", out)
	}
	src, version := f[0], f[1]
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}} {{.GoVersion}}").Output()
	if err != nil {
		return err
	}
	r := strings.Fields(string(root))
	dst := filepath.Join(dir, "templ")
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := copyDir(src, dst); err != nil {
		return err
	}
	if err := dropDevMode(filepath.Join(dst, "runtime", "watchmode.go")); err != nil {
		return err
	}
	for _, pkg := range []string{dst, filepath.Join(dst, "runtime")} {
		if err := stripPackage(pkg); err != nil {
			return err
		}
	}
	for _, pkg := range []string{dst, filepath.Join(dst, "safehtml")} {
		if err := slimRegexps(pkg); err != nil {
			return err
		}
	}
	work := fmt.Sprintf("go %s\n\nuse %s\n\nreplace github.com/a-h/templ %s => %s\n", r[1], r[0], version, dst)
	return os.WriteFile(filepath.Join(dir, "go.work"), []byte(work), 0o644)
}

func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
}

// dropped are the imports the copy loses, by path, with the name their
// declarations use: net/http for the handlers, and html/template for
// FromGoHTML and ToGoHTML, which keep text/template in the wasm, and with
// it reflect's MethodByName, which makes the linker keep every exported
// method of every type the program reaches. And crypto/sha256 (with
// encoding/hex, which only prints its sums) for the constructors of
// scripts and CSS classes (JSFuncCall, CSSID...), which hash them: the ui
// has neither, and SHA-256 keeps Go's FIPS module (AES, SHA-3, a DRBG)
// in the wasm.
var dropped = map[string]string{"net/http": "http", "html/template": "template", "crypto/sha256": "sha256", "encoding/hex": "hex"}

func importsDropped(src []byte) bool {
	for path := range dropped {
		if bytes.Contains(src, []byte(`"`+path+`"`)) {
			return true
		}
	}
	return false
}

// stripPackage rewrites the package's files that import what is dropped.
func stripPackage(dir string) error {
	return eachSource(dir, importsDropped, func(name string, data []byte) error {
		data = bytes.ReplaceAll(data, []byte("http.Flusher"), []byte("interface{ Flush() }"))
		slim, empty, err := strip(name, data)
		if err != nil {
			return err
		}
		if empty {
			return os.Remove(name)
		}
		return os.WriteFile(name, slim, 0o644)
	})
}

// eachSource calls f on each non-test Go file of dir whose source want
// accepts, with that source.
func eachSource(dir string, want func([]byte) bool, f func(name string, src []byte) error) error {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if !want(data) {
			continue
		}
		if err := f(name, data); err != nil {
			return err
		}
	}
	return nil
}

// strip drops the declarations that mention a dropped import, and then
// those that mention what was dropped (methods of a dropped type), and the
// imports.
func strip(name string, src []byte) ([]byte, bool, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, false, err
	}
	gone := map[string]bool{}
	for _, name := range dropped {
		gone[name] = true
	}
	for changed := true; changed; {
		changed = false
		var keep []ast.Decl
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				keep = append(keep, d)
				continue
			}
			if mentions(d, gone) {
				for _, n := range declared(d) {
					gone[n] = true
				}
				changed = true
				continue
			}
			keep = append(keep, d)
		}
		file.Decls = keep
	}
	var decls []ast.Decl
	for _, d := range file.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			var specs []ast.Spec
			for _, s := range g.Specs {
				if _, drop := dropped[strings.Trim(s.(*ast.ImportSpec).Path.Value, `"`)]; !drop {
					specs = append(specs, s)
				}
			}
			if g.Specs = specs; len(specs) == 0 {
				continue
			}
		}
		decls = append(decls, d)
	}
	file.Decls = decls
	file.Comments = nil // comments of dropped declarations would stay behind
	empty := true
	for _, d := range decls {
		if g, ok := d.(*ast.GenDecl); !ok || g.Tok != token.IMPORT {
			empty = false
		}
	}
	var buf bytes.Buffer
	if err := format.Node(&buf, fset, file); err != nil {
		return nil, false, err
	}
	return buf.Bytes(), empty, nil
}

// mentions reports whether a declaration uses any of the names.
func mentions(d ast.Decl, names map[string]bool) bool {
	found := false
	ast.Inspect(d, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && names[id.Name] {
			found = true
		}
		return !found
	})
	return found
}

// declared lists the names a declaration introduces.
func declared(d ast.Decl) []string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil {
			return []string{d.Name.Name}
		}
	case *ast.GenDecl:
		var names []string
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names = append(names, s.Name.Name)
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names = append(names, n.Name)
				}
			}
		}
		return names
	}
	return nil
}

// devMode is how templ's runtime turns on its development mode, in which
// every string a component writes is read again from the _templ.txt file
// beside its source (templ generate --watch).
const devMode = `var developmentMode = os.Getenv("TEMPL_DEV_MODE") == "true"`

// noDevMode is the copy's runtime/watchmode.go: WriteString as it is when
// development mode is off, as it always is in the page, which sets no
// environment. The mode's machinery (runtime.Caller, os files,
// path/filepath, a SHA-256 of the path) is 150 KB of gregor.wasm.
const noDevMode = `package runtime

import "io"

// WriteString writes the string to the writer (slimtempl: without
// templ's development mode).
func WriteString(w io.Writer, index int, s string) error {
	_, err := io.WriteString(w, s)
	return err
}
`

// dropDevMode replaces the runtime's watchmode.go by noDevMode, after
// checking that it switches the mode as slimtempl knows.
func dropDevMode(name string) error {
	data, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	if !bytes.Contains(data, []byte(devMode)) || !bytes.Contains(data, []byte("func WriteString(w io.Writer, index int, s string) (err error)")) {
		return fmt.Errorf("%s: not templ's development-mode switch as slimtempl knows it: slimtempl is out of date", name)
	}
	return os.WriteFile(name, []byte(noDevMode), 0o644)
}

//go:embed patterns.go
var patterns string

// slimRegexps replaces the package's regexp.MustCompile with slimCompile
// (patterns.go, copied in), so that the package no longer imports regexp.
// Any other use of regexp fails here.
func slimRegexps(dir string) error {
	pkg := ""
	compiles := func(src []byte) bool { return bytes.Contains(src, []byte(`"regexp"`)) }
	err := eachSource(dir, compiles, func(name string, data []byte) error {
		data = bytes.ReplaceAll(data, []byte("regexp.MustCompile("), []byte("slimCompile("))
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, name, data, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, d := range file.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
				g.Specs = slices.DeleteFunc(g.Specs, func(s ast.Spec) bool {
					return s.(*ast.ImportSpec).Path.Value == `"regexp"`
				})
			} else if mentions(d, map[string]bool{"regexp": true}) {
				return fmt.Errorf("%s: uses regexp beyond MustCompile", name)
			}
		}
		var buf bytes.Buffer
		if err := format.Node(&buf, fset, file); err != nil {
			return err
		}
		pkg = file.Name.Name
		return os.WriteFile(name, buf.Bytes(), 0o644)
	})
	if err != nil {
		return err
	}
	if pkg == "" {
		return fmt.Errorf("%s compiles no regexp: slimtempl is out of date", dir)
	}
	src := strings.Replace(patterns, "package main\n", "package "+pkg+"\n", 1)
	return os.WriteFile(filepath.Join(dir, "slim_patterns.go"), []byte(src), 0o644)
}
