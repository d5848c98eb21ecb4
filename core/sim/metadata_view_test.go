//go:build !noquorum

package sim

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestShowMetadata: the metadata log lists each committed record once, in
// index order, with a registration's epoch equal to its index, and from=
// starts at an index.
func TestShowMetadata(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 3", "topic t partitions=2 rf=2")
	all := execAll(t, w, "show metadata")
	for _, want := range []string{"TopicRecord t ", "PartitionRecord t-0 ", "PartitionRecord t-1 "} {
		if strings.Count(all, want) != 1 {
			t.Errorf("want one %q in:\n%s", want, all)
		}
	}
	reg := regexp.MustCompile(`index (\d+) term \d+: RegisterBrokerRecord b\d epoch=(\d+)`)
	ms := reg.FindAllStringSubmatch(all, -1)
	if len(ms) != 3 {
		t.Fatalf("%d registrations in:\n%s", len(ms), all)
	}
	for _, m := range ms {
		if m[1] != m[2] {
			t.Errorf("registration at index %s has epoch %s", m[1], m[2])
		}
	}
	idx := regexp.MustCompile(`index (\d+) `)
	last := 0
	for _, m := range idx.FindAllStringSubmatch(all, -1) {
		n, _ := strconv.Atoi(m[1])
		if n < last {
			t.Fatalf("index %d after %d:\n%s", n, last, all)
		}
		last = n
	}
	from := strconv.Itoa(last)
	if tail := execAll(t, w, "show metadata from="+from); strings.Contains(tail, "RegisterBrokerRecord") || !strings.Contains(tail, "index "+from+" ") {
		t.Errorf("from=%s:\n%s", from, tail)
	}
}

// TestShowQuorum: one active controller among three voters; after it
// dies, another one in a later term.
func TestShowQuorum(t *testing.T) {
	w := New(1)
	execAll(t, w, "cluster 3")
	before := execAll(t, w, "show quorum")
	if strings.Count(before, "active controller") != 1 || strings.Count(before, "follower") != 2 {
		t.Fatalf("show quorum:\n%s", before)
	}
	ctl := w.controllerName()
	execAll(t, w, "crash "+ctl+" process", "advance 5s")
	after := execAll(t, w, "show quorum")
	if strings.Count(after, "active controller") != 1 || !strings.Contains(after, ctl+"           down") || !strings.Contains(after, "term 2") {
		t.Fatalf("after %s died:\n%s", ctl, after)
	}
	if w.controllerName() == ctl {
		t.Fatalf("%s is still the controller", ctl)
	}
}
