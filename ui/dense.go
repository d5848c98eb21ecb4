package ui

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// denseArrows is the most arrows a step draws one per message; past it
// labels cross each other and the arrows between two nodes fan out over
// the lanes (seen on assignors, 42 arrows, coordinator-failover, 22, and
// network-partition's partitioned minute, 12), so they are bundled. Past
// denseLabels bundled arrows the wide layout numbers them too.
const (
	denseArrows = 10
	denseLabels = 8
)

// ranges folds arrows that differ only in numbers into one, its
// differing values given as a range ("Produce orders-0 base_offset=4..9"
// ×6): the answers to a burst of produces would fan out one arrow each.
// Only key=number fields may differ; the partition, API, ends and fate
// are the same.
func ranges(as []Arrow) []Arrow {
	var out []Arrow
	at := map[string]int{}
	lo, hi := map[int][]int64{}, map[int][]int64{}
	for _, a := range as {
		key := a.From + ">" + a.To + ">" + a.Class + ">" + a.Mark + ">" + shape(a.Label) + ">" + shape(a.More)
		vals := numbers(a.Label + " " + a.More)
		i, ok := at[key]
		if !ok {
			at[key] = len(out)
			lo[len(out)], hi[len(out)] = slices.Clone(vals), slices.Clone(vals)
			out = append(out, a)
			continue
		}
		for k, v := range vals {
			lo[i][k], hi[i][k] = min(lo[i][k], v), max(hi[i][k], v)
		}
		out[i].Count += a.Count
		out[i].Folded = out[i].Folded && a.Folded
	}
	for i := range out {
		if slices.Equal(lo[i], hi[i]) {
			continue
		}
		k := 0
		spell := func(label string) string {
			toks := strings.Fields(label)
			for j, t := range toks {
				if name, _, ok := numField(t); ok {
					if lo[i][k] != hi[i][k] {
						toks[j] = fmt.Sprintf("%s=%d..%d", name, lo[i][k], hi[i][k])
					}
					k++
				}
			}
			return strings.Join(toks, " ")
		}
		out[i].Label = spell(out[i].Label)
		out[i].More = spell(out[i].More)
		out[i].Title = out[i].Label + " " + out[i].More
	}
	for i := range out {
		out[i].N = i + 1
	}
	return out
}

// numField splits a key=integer token.
func numField(tok string) (string, int64, bool) {
	name, v, ok := strings.Cut(tok, "=")
	if !ok {
		return "", 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return name, n, err == nil
}

// shape is a label with its key=integer values masked.
func shape(label string) string {
	toks := strings.Fields(label)
	for j, t := range toks {
		if name, _, ok := numField(t); ok {
			toks[j] = name + "=#"
		}
	}
	return strings.Join(toks, " ")
}

// numbers are a label's key=integer values, in order.
func numbers(label string) []int64 {
	var out []int64
	for _, t := range strings.Fields(label) {
		if _, n, ok := numField(t); ok {
			out = append(out, n)
		}
	}
	return out
}

// bundle draws a dense step's arrows one per sender, receiver and fate,
// in the order each first happened: its label lists the APIs it carried
// with their counts ("JoinGroup ×2, SyncGroup"), its title the messages.
func bundle(as []Arrow) []Arrow {
	var out []Arrow
	at := map[string]int{}
	var apis [][]string
	var counts []map[string]int
	for _, a := range as {
		key := a.From + ">" + a.To + ">" + a.Class + ">" + a.Mark
		api := apiOf(a.Label)
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			b := a
			b.Count, b.Title, b.More = 0, "", ""
			out = append(out, b)
			apis = append(apis, nil)
			counts = append(counts, map[string]int{})
		}
		b := &out[i]
		if counts[i][api] == 0 {
			apis[i] = append(apis[i], api)
		}
		counts[i][api] += a.Count
		b.Count += a.Count
		b.Folded = b.Folded && a.Folded
		b.Response = b.Response && a.Response
		b.Title = strings.TrimPrefix(b.Title+"; "+a.Title+times(a), "; ")
	}
	for i := range out {
		out[i].N = i + 1
		if len(apis[i]) == 1 {
			out[i].Label = apis[i][0] // and its count, as any arrow's
			continue
		}
		var parts []string
		for _, api := range apis[i] {
			parts = append(parts, strings.TrimSpace(api+" "+times(Arrow{Count: counts[i][api]})))
		}
		out[i].Label, out[i].Count = strings.Join(parts, ", "), 1 // the label counts each API
	}
	return out
}

// apiOf is the API at the head of an arrow's label, "(replica)" kept.
func apiOf(label string) string {
	f := strings.Fields(label)
	if len(f) > 1 && f[1] == "(replica)" {
		return f[0] + " " + f[1]
	}
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
