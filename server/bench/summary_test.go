package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
)

// The closing table of `make bench`: every benchmark that ran adds its
// figures (figure | gregor | kfake | ratio | goal | met?) and TestMain
// prints them all after the last benchmark. Each cell is a median over
// rounds with its range, "12.3 (11.8-13.0)". A figure is "met" when the
// median meets its goal; a throughput ratio only counts while the
// client's core was below 90% busy (else the client, not the broker, set
// the pace), and says so instead of yes or no.

// spread is a figure's median over rounds and its range.
type spread struct {
	med, lo, hi float64
	n           int
}

// spreadOf is the median (the lower middle one for an even count) and
// range of xs; the zero spread if xs is empty.
func spreadOf(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return spread{med: s[(len(s)-1)/2], lo: s[0], hi: s[len(s)-1], n: len(s)}
}

// spreadOver is the spread of f over rs.
func spreadOver(rs []phaseResult, f func(phaseResult) float64) spread {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return spreadOf(xs)
}

// format prints the median and range with verb (such as "%.1f").
func (s spread) format(verb string) string {
	if s.n == 0 {
		return "-"
	}
	if s.n == 1 {
		return fmt.Sprintf(verb+" (1 round)", s.med)
	}
	return fmt.Sprintf(verb+" ("+verb+"-"+verb+")", s.med, s.lo, s.hi)
}

// row is one line of the closing table.
type row struct{ figure, gregor, kfake, ratio, goal, met string }

var table struct {
	sync.Mutex
	rows []row
}

func report(r row) {
	table.Lock()
	defer table.Unlock()
	table.rows = append(table.rows, r)
}

// printTable writes the closing table, if any benchmark added to it.
func printTable(w io.Writer) {
	table.Lock()
	defer table.Unlock()
	if len(table.rows) == 0 {
		return
	}
	rows := append([]row{{"figure", "gregor", "kfake", "ratio", "goal", "met?"}}, table.rows...)
	var width [6]int
	for _, r := range rows {
		for i, c := range r.cells() {
			width[i] = max(width[i], len(c))
		}
	}
	fmt.Fprintf(w, "\n== make bench: every figure, median of the rounds (min-max) ==\n")
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r.cells() {
			fmt.Fprintf(&b, "%-*s | ", width[i], c)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " |"))
	}
}

func (r row) cells() [6]string {
	return [6]string{r.figure, r.gregor, r.kfake, r.ratio, r.goal, r.met}
}

// verdict is the met? cell: "yes" or "no", or why the figure does not
// count.
func verdict(ok bool, notCounted string) string {
	switch {
	case notCounted != "":
		return "not counted: " + notCounted
	case ok:
		return "yes"
	default:
		return "no"
	}
}

// clientLoad describes the client's core over the phases of a ratio
// (each a median busy fraction), and whether the ratio is client-bound.
func clientLoad(busy ...float64) (note string, bound bool) {
	worst := -1.0
	for _, b := range busy {
		worst = max(worst, b)
	}
	if worst < 0 {
		return "client core: unknown", false
	}
	where := "client core"
	if !placed.pinned {
		where = "all cores (unpinned)"
	}
	if worst >= clientBound {
		return fmt.Sprintf("%s %.0f%% busy", where, 100*worst), true
	}
	return fmt.Sprintf("%s %.0f%% busy", where, 100*worst), false
}
