package gregor

import (
	"io/fs"
	"os"
	"testing"

	"github.com/gregor-kafka/gregor/lessons/play"
)

// TestBundleBudget: each browser bundle, as embedded and served (gzipped
// by `make wasm`, which `make test` runs first), stays within its budget.
// Without a build it skips, loudly; under CI=true it fails.
func TestBundleBudget(t *testing.T) {
	for name, budget := range play.Budgets {
		info, err := fs.Stat(Assets(), name+".gz")
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s.gz is not built (run make wasm; make test does): %v", name, err)
			}
			t.Skipf("SKIPPING THE BUNDLE BUDGET: %s.gz is not built (run make wasm)", name)
		}
		t.Logf("%s.gz: %d bytes, budget %d", name, info.Size(), budget)
		if info.Size() > int64(budget) {
			t.Errorf("%s.gz is %d bytes gzipped, over its budget of %d", name, info.Size(), budget)
		}
	}
}
