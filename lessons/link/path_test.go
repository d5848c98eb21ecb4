package link

import (
	"testing"
)

func TestFromPath(t *testing.T) {
	for _, tc := range []struct {
		path, query, want string
		ok                bool
	}{
		{"", "lesson=segments&step=3", "lesson=segments&step=3", true},
		{"/", "", "", true},
		{"index.html", "lang=zh", "lang=zh", true},
		{"join/KXMRT", "lesson=segments&step=2", "lesson=segments&step=2", true},
		{"en/", "", "lang=en", true},
		{"zh", "", "lang=zh", true},
		{"zh/segments/", "", "lesson=segments&lang=zh", true},
		{"zh/segments/4/", "", "lesson=segments&step=4&lang=zh", true},
		{"zh/segments/4", "actions=3:crash+b0&answers=2:1", "lesson=segments&step=4&lang=zh&actions=3:crash+b0&answers=2:1", true},
		// The path names the lesson, step and language; the query the rest.
		{"en/segments/4/", "lesson=other&step=9&lang=zh&seed=7", "lesson=segments&step=4&lang=en&seed=7", true},
		{"en/playground/", "cmds=broker,topic+t&step=1", "playground=1&lang=en&cmds=broker,topic+t&step=1", true},
		{"embed/zh/segments/2/", "", "embed=1&lesson=segments&step=2&lang=zh", true},
		{"embed/zh/segments/", "", "embed=1&lesson=segments&lang=zh", true},
		{"embed/zh/playground/", "", "", false},
		{"embed/zh/", "", "", false},
		{"fr/segments/", "", "", false},
		{"en/segments/0/", "", "", false},
		{"en/segments/04/", "", "", false},
		{"en/segments/x/", "", "", false},
		{"en/segments/4/5/", "", "", false},
		{"en/Segments/", "", "", false},
		{"s/abc", "", "", false},
		{"assets/gregor.wasm", "", "", false},
	} {
		got, ok := FromPath(tc.path, tc.query)
		if got != tc.want || ok != tc.ok {
			t.Errorf("FromPath(%q, %q) = %q, %v; want %q, %v", tc.path, tc.query, got, ok, tc.want, tc.ok)
		}
	}
}
