package protocol

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestShapes: validSlug, validLang and validID accept what their regular
// expressions match, on random strings around the length limits.
func TestShapes(t *testing.T) {
	alphabet := []byte("az09AZ-_.@`[{/é ")
	r := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct {
		re    *regexp.Regexp
		valid func(string) bool
	}{
		{regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`), validSlug},
		{regexp.MustCompile(`^[a-zA-Z]{2,8}(-[a-zA-Z0-9]{1,8})?$`), validLang},
		{regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`), validID},
	} {
		accepted := 0
		for _, n := range []int{0, 1, 2, 3, 8, 9, 10, 11, 17, 18, 63, 64, 65, 66} {
			for range 5000 {
				var b strings.Builder
				for range n {
					c := alphabet[r.IntN(len(alphabet))]
					if r.IntN(4) > 0 { // mostly the common case: letters
						c = "abzAZ09"[r.IntN(7)]
					}
					b.WriteByte(c)
				}
				s := b.String()
				want := tc.re.MatchString(s)
				if tc.valid(s) != want {
					t.Errorf("%s on %q: regexp says %v", tc.re, s, want)
				}
				if want {
					accepted++
				}
			}
		}
		if accepted < 100 {
			t.Errorf("%s: only %d strings accepted", tc.re, accepted)
		}
	}
}
