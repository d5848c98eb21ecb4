package saved

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	version := func(slug string) (string, bool) {
		if slug == "segments" {
			return "00112233aabbccdd", true
		}
		return "", false
	}
	for _, tc := range []struct {
		body string
		err  error // nil: kept as sent
	}{
		{`{"link":"zh/segments/12/?actions=4:crash+b0&answers=7:1&v=00112233aabbccdd"}`, nil},
		{`{"link":"en/segments/?v=00112233aabbccdd"}`, nil},
		{`{"link":"embed/en/segments/3/?v=00112233aabbccdd"}`, nil},
		{`{"link":"en/playground/?cmds=broker,topic+t&step=2&seed=4"}`, nil},
		{`{"link":"en/segments/12/?v=0000000000000000"}`, ErrChanged},
		{`{"link":"en/segments/12/"}`, ErrInvalid},                                    // no version
		{`{"link":"en/nope/?v=00112233aabbccdd"}`, ErrInvalid},                        // no such lesson
		{`{"link":"en/"}`, ErrInvalid},                                                // the list
		{`{"link":""}`, ErrInvalid},                                                   // the root
		{`{"link":"/en/segments/?v=00112233aabbccdd"}`, ErrInvalid},                   // not relative
		{`{"link":"https://evil.example/en/segments/"}`, ErrInvalid},                  // not ours
		{`{"link":"join/ABCDE?lesson=segments"}`, ErrInvalid},                         // a class's page
		{`{"link":"en/segments/?v=00112233aabbccdd&token=x"}`, ErrInvalid},            // not a session's
		{`{"link":"en/segments/?v=00112233aabbccdd&v=00112233aabbccdd"}`, ErrInvalid}, // twice
		{`{"link":"en/segments/ ?v=00112233aabbccdd"}`, ErrInvalid},
		{`{"link":"en/segments/","extra":1}`, ErrInvalid},
		{`{"link":"en/playground/"}{"link":"en/playground/"}`, ErrInvalid},
		{`not json`, ErrInvalid},
		{`{"link":"en/playground/?cmds=` + strings.Repeat("broker,", MaxSaved/7) + `"}`, ErrInvalid}, // too long
	} {
		s, err := Check(strings.NewReader(tc.body), version)
		switch {
		case tc.err == nil && err != nil:
			t.Errorf("%.80s: %v", tc.body, err)
		case tc.err == nil && !strings.Contains(tc.body, `"`+s.Link+`"`):
			t.Errorf("%.80s: kept %q", tc.body, s.Link)
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("%.80s: err %v, want %v", tc.body, err, tc.err)
		}
	}
}

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id, err := NewID(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if !ValidID(id) || len(id) != 22 || seen[id] {
			t.Fatalf("id %q: valid %v, length %d, seen before %v", id, ValidID(id), len(id), seen[id])
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "abc", strings.Repeat("A", 21), strings.Repeat("A", 23), "AAAAAAAAAAAAAAAAAAAA/A", "AAAAAAAAAAAAAAAAAAAA+A", "../../etc/passwd", strings.Repeat("A", 21) + "B"} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
}
