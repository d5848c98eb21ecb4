package core

// impureFixture is a package of impure code for TestPurityCheckCatches,
// kept as text so that no impure Go file lives in core: the test writes it
// into a module of its own in a temporary directory and checks it there.
const impureFixture = `// Package impure is what core/purity_test.go must catch: each line marked
// want is impure in a way a check of names in the source would miss or
// that a blocklist would not name.
package impure

import (
	crand "crypto/rand" // want "which core may not"
	"fmt"
	"maps"
	mrand "math/rand/v2"
	"os" // want "which core may not"
	"slices"
	"sort"
	. "time"
	clock "time"
)

func Impure(m map[string]int) []string {
	_ = clock.Now()             // want "the wall clock"
	_ = Since(clock.Time{})     // want "the wall clock"
	crand.Read(make([]byte, 8)) // want "the system's randomness"
	_ = mrand.Float32()         // want "global randomness"
	_ = mrand.NormFloat64()     // want "global randomness"
	_ = mrand.Uint()            // want "global randomness"
	fmt.Println("hello")        // want "printing to stdout"
	println("hello")            // want "printing to stderr"
	_ = os.Getenv("HOME")       // want "the process and its files"
	go func() {}()              // want "starts a goroutine"
	var keys []string
	for k := range m { // want "ranges over a map"
		keys = append(keys, k)
	}
	for k := range maps.Keys(m) { // want "ranges over a map"
		keys = append(keys, k)
	}
	for range m { //purity:unordered excuses this range, not the next
		for k := range m { // want "ranges over a map"
			keys = append(keys, k)
		}
	}
	return keys
}

// Pure is what the check must let be.
func Pure(m map[string]int, r *mrand.Rand, now clock.Time) []string {
	_ = r.Float32() // a seeded source, passed in
	_ = mrand.New(mrand.NewPCG(1, 2))
	_ = now.Add(clock.Second)
	_ = fmt.Sprintf("%d", len(m))
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var vals []int
	for _, v := range m {
		vals = append(vals, v)
	}
	sort.Ints(vals)
	n := 0
	for range m { //purity:unordered a count is the same in any order
		n++
	}
	return slices.Sorted(maps.Keys(m))
}
`
