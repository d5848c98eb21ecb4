package main

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// Each matcher answers as regexp does, on every string of its alphabet up
// to three bytes and on random longer ones.
func TestSlimCompile(t *testing.T) {
	alphabet := []byte("aZ09$_.-+,!#%*/ \t:;\"()é\x00")
	var all []string
	var grow func(string, int)
	grow = func(s string, n int) {
		all = append(all, s)
		if n > 0 {
			for _, c := range alphabet {
				grow(s+string(c), n-1)
			}
		}
	}
	grow("", 3)
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, 4+r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		all = append(all, string(b))
	}
	all = append(all, "sans-serif", "font-family", "1.5em", "rgba(0,0,0,0.5)", "a*b", "a/", "*/", "window.foo.bar", "x.", ".x", "$1")
	for _, expr := range []string{
		`^[-a-zA-Z]+$`,
		`^[a-zA-Z-]*$`,
		`^[a-zA-Z][- a-zA-Z]+$`,
		`^(?:[*/]?(?:[0-9a-zA-Z+-.!#%_ \t]|$))*$`,
		`^[$_a-zA-Z][$_a-zA-Z0-9]*(\.[$_a-zA-Z][$_a-zA-Z0-9]*)*$`,
	} {
		re, slim := regexp.MustCompile(expr), slimCompile(expr)
		for _, s := range all {
			if want := re.MatchString(s); slim.MatchString(s) != want {
				t.Errorf("%s on %q: %v, regexp says %v", expr, s, !want, want)
			}
		}
	}
}

func TestSlimCompileUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("an unknown pattern did not panic")
		}
	}()
	slimCompile(`^a+$`)
}
