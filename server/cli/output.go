package cli

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// show prints v as JSON with --format json, else the table rows gives:
// a header row, then one row per item, columns aligned.
func (e *env) show(v any, rows func() [][]string) error {
	if e.format == "json" {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, r := range rows() {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	return tw.Flush()
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func joinInts(is []int32) string {
	s := make([]string, len(is))
	for i, n := range is {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}

// errText is an error for a table cell: "-" for none.
func errText(err error) string {
	if err == nil {
		return "-"
	}
	return err.Error()
}

// keyValues parses repeated key=value flags.
func keyValues(flagName string, kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("%s %q: want key=value", flagName, kv)
		}
		out[k] = v
	}
	return out, nil
}

// repeated is a flag that may be given many times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(s string) error { *r = append(*r, s); return nil }
