package main

import (
	"os"
	"strings"
	"testing"
)

func TestStrip(t *testing.T) {
	src := `package templ

import (
	"io"
	"net/http"
)

// Handler serves a component.
type Handler struct {
	Status int
	Err    func(*http.Request)
}

func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {}

func (h *Handler) status() int { return h.Status }

func NewHandler() *Handler { return &Handler{} }

func Render(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }
`
	out, empty, err := strip("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, gone := range []string{"net/http", "ServeHTTP", "type Handler", "status()", "NewHandler"} {
		if strings.Contains(got, gone) {
			t.Errorf("%q is still there:\n%s", gone, got)
		}
	}
	if empty || !strings.Contains(got, "func Render(w io.Writer) error") || !strings.Contains(got, `"io"`) {
		t.Errorf("what does not need net/http must stay (empty=%v):\n%s", empty, got)
	}
	_, empty, err = strip("h.go", []byte("package templ\n\nimport \"net/http\"\n\nfunc H(w http.ResponseWriter) {}\n"))
	if err != nil || !empty {
		t.Errorf("a file of HTTP handlers only: empty=%v err=%v", empty, err)
	}
}

func TestDropDevMode(t *testing.T) {
	name := t.TempDir() + "/watchmode.go"
	src := "package runtime\n\n" + devMode + "\n\nfunc WriteString(w io.Writer, index int, s string) (err error) {\n\treturn nil\n}\n"
	if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := dropDevMode(name); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(name); string(got) != noDevMode {
		t.Errorf("dropDevMode wrote:\n%s", got)
	}
	if err := dropDevMode(name); err == nil {
		t.Error("a file without templ's development-mode switch passed")
	}
}
