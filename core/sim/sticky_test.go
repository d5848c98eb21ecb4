package sim

import (
	"regexp"
	"strings"
	"testing"
)

var produceTo = regexp.MustCompile(`p1 -> b0     Produce logs-(\d) `)

// keylessRun produces n keyless 13-byte records with batch.size=40 and
// returns the partition each went to, in order.
func keylessRun(t *testing.T, seed uint64, n string) []string {
	t.Helper()
	w := New(seed)
	var out strings.Builder
	for _, c := range []string{"broker", "topic logs partitions=4", "producer p1 acks=1 batch.size=40", "produce p1 logs value=line- count=" + n} {
		o, err := w.Exec(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		out.WriteString(o)
	}
	var parts []string
	for _, m := range produceTo.FindAllStringSubmatch(out.String(), -1) {
		parts = append(parts, m[1])
	}
	return parts
}

// TestStickyPartitioner: keyless records go to one partition in runs of
// four (13-byte records, batch.size=40: 3 records are 39 bytes, 4 are
// 52), the draws spread over several partitions, and the same seed draws
// the same partitions.
func TestStickyPartitioner(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		parts := keylessRun(t, seed, "8") // line-0..line-7: 13 bytes each
		if len(parts) != 8 {
			t.Fatalf("seed %d: %d produces, want 8", seed, len(parts))
		}
		for i := range parts {
			if i%4 != 0 && parts[i] != parts[i-1] {
				t.Fatalf("seed %d: switched partition inside a batch's worth: %v", seed, parts)
			}
			seen[parts[i]] = true
		}
		if again := keylessRun(t, seed, "8"); strings.Join(again, " ") != strings.Join(parts, " ") {
			t.Fatalf("seed %d: two runs drew %v and %v", seed, parts, again)
		}
	}
	if len(seen) < 3 {
		t.Fatalf("eight seeds drew only partitions %v", seen)
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
