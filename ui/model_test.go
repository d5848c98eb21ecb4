package ui

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestParenNumber: parenNumber finds what \(in flight (#\d+)\) and
// \(delayed (\d+ms)\) find, on random mixtures of their pieces.
func TestParenNumber(t *testing.T) {
	pieces := []string{"(in flight ", "(delayed ", "(in flight #3)", "(delayed 40ms)", "#", "12", "7", "ms", ")", " ", "x", "(", "é"}
	r := rand.New(rand.NewPCG(5, 6))
	found := 0
	for _, tc := range []struct {
		re               *regexp.Regexp
		label, pre, post string
	}{
		{regexp.MustCompile(`\(in flight (#\d+)\)`), MarkInFlight, "#", ""},
		{regexp.MustCompile(`\(delayed (\d+ms)\)`), MarkDelayed, "", "ms"},
	} {
		for range 50000 {
			var b strings.Builder
			for range 1 + r.IntN(8) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			s := b.String()
			got, ok := parenNumber(s, tc.label, tc.pre, tc.post)
			m := tc.re.FindStringSubmatch(s)
			if ok != (m != nil) || ok && got != m[1] {
				t.Errorf("parenNumber(%q, %q) = %q, %v; regexp finds %q", s, tc.label, got, ok, m)
			}
			if ok {
				found++
			}
		}
	}
	if found < 1000 {
		t.Fatalf("only %d strings had a field", found)
	}
}
