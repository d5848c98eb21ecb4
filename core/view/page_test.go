package view

import (
	"slices"
	"testing"
)

// TestIDPage: a page is the next n ids in order after the previous page's
// last, and names where the next one starts, "" on the last page.
func TestIDPage(t *testing.T) {
	ids := []string{"d", "a", "c", "b", "e"}
	for _, tc := range []struct {
		after    string
		n        int
		want     []string
		wantNext string
	}{
		{"", 2, []string{"a", "b"}, "b"},
		{"b", 2, []string{"c", "d"}, "d"},
		{"d", 2, []string{"e"}, ""},
		{"", 5, []string{"a", "b", "c", "d", "e"}, ""},
		{"bb", 1, []string{"c"}, "c"},
		{"e", 3, []string{}, ""},
	} {
		got, next := idPage(ids, tc.after, tc.n, nil)
		if !slices.Equal(got, tc.want) || next != tc.wantNext {
			t.Errorf("after %q, n %d: %q next %q, want %q next %q", tc.after, tc.n, got, next, tc.want, tc.wantNext)
		}
	}
	// keep leaves ids out before the page is cut: pages stay full, and
	// the next page starts after the last id shown.
	notC := func(id string) bool { return id != "c" }
	if got, next := idPage(ids, "", 2, notC); !slices.Equal(got, []string{"a", "b"}) || next != "b" {
		t.Errorf("without c, the first page: %q next %q", got, next)
	}
	if got, next := idPage(ids, "b", 2, notC); !slices.Equal(got, []string{"d", "e"}) || next != "" {
		t.Errorf("without c, after b: %q next %q", got, next)
	}
	if !slices.Equal(ids, []string{"d", "a", "c", "b", "e"}) {
		t.Errorf("idPage changed its input: %q", ids)
	}
}
