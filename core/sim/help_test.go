package sim

import (
	"strings"
	"testing"
)

// TestUsagesCoverCommands: help lists every command of the table, once,
// and nothing the table lacks, so the list cannot drift from it.
func TestUsagesCoverCommands(t *testing.T) {
	seen := map[string]bool{}
	for _, u := range Commands() {
		// The single-broker build lists `cluster` too: the page hands a
		// playground that types it over to the full build.
		if _, ok := commands[u.Name]; !ok && (HasQuorum || u.Name != "cluster") {
			t.Errorf("help lists %q, which is not a command", u.Name)
		}
		if seen[u.Name] {
			t.Errorf("help lists %q twice", u.Name)
		}
		seen[u.Name] = true
		if first := strings.Fields(u.Synopsis)[0]; first != u.Name || u.Does == "" {
			t.Errorf("usage of %q: synopsis %q, does %q", u.Name, u.Synopsis, u.Does)
		}
	}
	for _, name := range commandNames() {
		if !seen[name] {
			t.Errorf("command %q has no usage in help (core/sim/help.go)", name)
		}
	}
}

func TestHelpAndUnknown(t *testing.T) {
	w := New(1)
	out, err := w.Exec("help")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range commandNames() {
		if !strings.Contains(out, "\n"+name) && !strings.HasPrefix(out, name) {
			t.Errorf("help does not list %q:\n%s", name, out)
		}
	}
	_, err = w.Exec("prodce p1 t value=x")
	if err == nil || !strings.Contains(err.Error(), `"prodce"`) || !strings.Contains(err.Error(), "produce") || !strings.Contains(err.Error(), "help") {
		t.Errorf("unknown command: %v", err)
	}
}
