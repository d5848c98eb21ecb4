package play

import (
	"slices"
	"strings"
	"testing"
)

func TestTryRejects(t *testing.T) {
	var tl Timeline
	s := Parse("playground=1&cmds=broker,topic+orders+partitions=2")
	if msg := s.Try("prodce p1 orders value=x", &tl); !strings.Contains(msg, "unknown command") || !strings.Contains(msg, "produce") {
		t.Errorf("a typo: %q", msg)
	}
	if got := s.Query(s.Pos); strings.Contains(got, "prodce") || len(s.Items) != 2 || s.Pos != 2 {
		t.Errorf("a rejected command stayed: %s (pos %d of %d)", got, s.Pos, len(s.Items))
	}
	if msg := s.Try("producer p1 idempotent", &tl); msg != "" {
		t.Errorf("a good command was rejected: %q", msg)
	}
	if got := s.Query(s.Pos); !strings.Contains(got, "producer+p1+idempotent") || s.Pos != 3 {
		t.Errorf("a good command is not in the URL: %s", got)
	}
	// The page from the timeline Try used is the page of the URL.
	if a, b := html(t, s.PageOn(&tl)), html(t, Parse(s.Query(s.Pos)).Page()); a != b {
		t.Errorf("after Try, the kept page differs from a fresh replay:\n%s", firstDifference(a, b))
	}
}

func TestComplete(t *testing.T) {
	s := Parse("playground=1&cmds=broker,topic+orders+partitions=2,topic+audit,producer+p1,consumer+c1")
	st := s.Page().State
	for _, tc := range []struct {
		line, want string
		options    []string
	}{
		{"pro", "produce", []string{"produce", "producer"}},
		{"fet", "fetch ", []string{"fetch"}},
		{"produce p", "produce p1 ", []string{"p1"}},
		{"fetch c1 or", "fetch c1 orders", []string{"orders", "orders-0", "orders-1"}},
		{"fetch c1 orders-1", "fetch c1 orders-1 ", []string{"orders-1"}},
		{"crash b", "crash b0 ", []string{"b0"}},
		{"produce p1 orders value=o", "produce p1 orders value=o", nil},
		{"zzz", "zzz", nil},
		{"he", "he", []string{"heal", "help"}},
		{"hel", "help ", []string{"help"}},
		{"send-", "send-offsets ", []string{"send-offsets"}},
	} {
		got, options := s.Complete(tc.line, st)
		if got != tc.want || !slices.Equal(options, tc.options) {
			t.Errorf("Complete(%q) = %q %v, want %q %v", tc.line, got, options, tc.want, tc.options)
		}
	}
}
