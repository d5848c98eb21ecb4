package server

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// parseFeatures reads the --feature levels (name=level), which must be
// levels this Gregor serves.
func parseFeatures(specs []string) (map[string]int16, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := map[string]int16{}
	for _, spec := range specs {
		name, level, ok := strings.Cut(spec, "=")
		n, err := strconv.ParseInt(strings.TrimSpace(level), 10, 16)
		if !ok || err != nil {
			return nil, fmt.Errorf("--feature %q: want name=level", spec)
		}
		out[strings.TrimSpace(name)] = int16(n)
	}
	if err := cluster.CheckFeatureLevels(out); err != nil {
		return nil, fmt.Errorf("--feature: %w", err)
	}
	return out, nil
}
