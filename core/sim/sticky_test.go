package sim

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// keylessRun produces n keyless 13-byte records with batch.size=40 from
// producer name, in a world of the given seed, and returns the partition
// each went to, in order.
func keylessRun(t *testing.T, seed uint64, name, n string) []string {
	t.Helper()
	w := New(seed)
	var out strings.Builder
	for _, c := range []string{"broker", "topic logs partitions=4", "producer " + name + " acks=1 batch.size=40",
		"produce " + name + " logs value=line- count=" + n} {
		o, err := w.Exec(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		out.WriteString(o)
	}
	var parts []string
	re := regexp.MustCompile(name + ` -> b0 +Produce logs-(\d) `)
	for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
		parts = append(parts, m[1])
	}
	return parts
}

// TestStickyPartitioner: keyless records go to one partition in runs of
// four (13-byte records, batch.size=40: 3 records are 39 bytes, 4 are
// 52); producers draw different partitions; a producer draws the same
// ones under every seed.
func TestStickyPartitioner(t *testing.T) {
	seen := map[string]bool{}
	for _, name := range []string{"p1", "p2", "p3", "p4", "p5", "p6"} {
		parts := keylessRun(t, 1, name, "8") // line-0..line-7: 13 bytes each
		if len(parts) != 8 {
			t.Fatalf("%s: %d produces, want 8", name, len(parts))
		}
		for i := range parts {
			if i%4 != 0 && parts[i] != parts[i-1] {
				t.Fatalf("%s: switched partition inside a batch's worth: %v", name, parts)
			}
			seen[parts[i]] = true
		}
		if other := keylessRun(t, 99, name, "8"); !slices.Equal(other, parts) {
			t.Fatalf("%s: seed 1 drew %v, seed 99 %v", name, parts, other)
		}
	}
	if len(seen) < 3 {
		t.Fatalf("six producers drew only partitions %v", seen)
	}
}

// TestBatchSizeOption rejects a batch.size below one byte.
func TestBatchSizeOption(t *testing.T) {
	w := New(1)
	if _, err := w.Exec("broker"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec("producer p1 batch.size=0"); err == nil {
		t.Fatal("batch.size=0 accepted")
	}
}
