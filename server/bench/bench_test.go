package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkBrokers is `make bench`: the same produce-then-consume workload
// against each broker in GREGOR_BENCH_BROKERS, and the gregor/kfake ratios.
// All brokers run side by side; each round runs the workload once on every
// broker (in an order that alternates between rounds) on a fresh topic, so
// noise from the machine hits both alike. The figures are the per-broker
// medians over GREGOR_BENCH_ROUNDS rounds (times b.N; run with -benchtime 1x),
// or fewer if GREGOR_BENCH_BUDGET runs out.
func BenchmarkBrokers(b *testing.B) {
	only(b, "brokers")
	s := loadSettings(b)
	ctx := context.Background()
	targets := startTargets(b, s.brokers)
	type runs struct{ prod, cons []phaseResult }
	results := map[string]*runs{}
	for _, t := range targets {
		results[t.name] = &runs{}
	}
	// The consume floor (floor_test.go) sends the bytes of each of
	// gregor's consume phases again, right after it, by sendfile alone.
	floorChild := startChild(b, "floor", envFloorChild)
	b.Cleanup(func() { _ = floorChild.stop() })
	var floor []phaseResult
	rounds := alternate(b, s, targets, func(r int, t *target) {
		prod, cons, err := runWorkload(ctx, t, fmt.Sprintf("bench-%d", r), s)
		if err != nil {
			b.Fatalf("%s, round %d: %v", t.name, r+1, err)
		}
		results[t.name].prod = append(results[t.name].prod, prod)
		results[t.name].cons = append(results[t.name].cons, cons)
		if t.name == "gregor" {
			f, err := measureFloor(floorChild, 's', cons.bytes)
			if err != nil {
				b.Fatalf("round %d: %v", r+1, err)
			}
			floor = append(floor, f)
		}
	})
	b.ReportMetric(0, "ns/op") // the wall time of one op means nothing here

	var sum strings.Builder
	fmt.Fprintf(&sum, "\n%d x %d B records, %d partitions, acks=all, kgo; median (min-max) of %d rounds (of %d asked; budget %v)\n",
		s.records, recordSize, partitions, rounds, s.rounds*b.N, s.budget)
	fmt.Fprintf(&sum, "%-13s %-24s %-24s %-18s %-18s %-20s %-20s\n",
		"broker", "produce MB/s", "consume MB/s", "client prod", "client cons",
		"cpu-s/GB produced", "cpu-s/GB consumed")
	med := map[string]figures{}
	for _, t := range targets {
		r := results[t.name]
		f := figures{
			prod: spreadOver(r.prod, phaseResult.mbps), cons: spreadOver(r.cons, phaseResult.mbps),
			prodBusy: spreadOver(r.prod, busy), consBusy: spreadOver(r.cons, busy),
			prodCPU: spreadOver(r.prod, phaseResult.cpuPerGB), consCPU: spreadOver(r.cons, phaseResult.cpuPerGB),
		}
		med[t.name] = f
		fmt.Fprintf(&sum, "%-13s %-24s %-24s %-18s %-18s %-20s %-20s\n", t.name,
			f.prod.format("%.1f"), f.cons.format("%.1f"), percent(f.prodBusy), percent(f.consBusy),
			f.prodCPU.format("%.2f"), f.consCPU.format("%.2f"))
		b.ReportMetric(f.prod.med, t.name+"-produce-MB/s")
		b.ReportMetric(f.cons.med, t.name+"-consume-MB/s")
	}
	// goalRatio is issue 23's goal for both throughputs: 1.5 times kfake's.
	const goalRatio = 1.5
	g, gok := med["gregor"]
	k, kok := med["kfake"]
	if !kok {
		k, kok = med["kfake-inproc"]
	}
	for _, ph := range []struct {
		name       string
		g, k       spread
		gBusy      spread
		kBusy      spread
		cpu, kcpu  spread
		goalCPU    float64
		metricName string
	}{
		{"produce", g.prod, k.prod, g.prodBusy, k.prodBusy, g.prodCPU, k.prodCPU, 1.0, "produce-gregor/kfake"},
		{"consume", g.cons, k.cons, g.consBusy, k.consBusy, g.consCPU, k.consCPU, 0.25, "consume-gregor/kfake"},
	} {
		if !gok {
			break
		}
		load, bound := clientLoad(ph.gBusy.med, ph.kBusy.med)
		if kok && ph.k.med > 0 {
			r := ph.g.med / ph.k.med
			b.ReportMetric(r, ph.metricName)
			counts := "counts"
			if bound {
				counts = "client-bound: does not count"
			}
			fmt.Fprintf(&sum, "gregor/kfake %s %.2fx (goal >= %.2fx; %s, %s)\n", ph.name, r, goalRatio, load, counts)
		}
		notCounted := ""
		if bound {
			notCounted = "client-bound"
		}
		report(row{ph.name + " MB/s, 6 partitions", ph.g.format("%.1f"), kfakeCell(kok, ph.k, "%.1f"), ratioCell(ph.g, ph.k),
			fmt.Sprintf(">= %.2fx kfake", goalRatio), verdict(kok && ph.g.med >= goalRatio*ph.k.med, notCounted) + " (" + load + ")"})
		report(row{"broker cpu-s per GB " + ph.name + "d", ph.cpu.format("%.2f"), kfakeCell(kok, ph.kcpu, "%.2f"), ratioCell(ph.cpu, ph.kcpu),
			fmt.Sprintf("<= %.2f", ph.goalCPU), verdict(ph.cpu.n > 0 && ph.cpu.med <= ph.goalCPU, "")})
	}
	if fl := spreadOver(floor, phaseResult.cpuPerGB); gok && fl.n > 0 {
		fmt.Fprintf(&sum, "the same bytes by loopback sendfile alone, in %d KiB calls: %s cpu-s/GB; gregor's consume %.2fx of it\n",
			floorChunk>>10, fl.format("%.2f"), g.consCPU.med/fl.med)
		report(row{fmt.Sprintf("loopback sendfile alone, cpu-s per GB (gregor's consumed bytes again, %d KiB calls)", floorChunk>>10), fl.format("%.2f"), "-",
			fmt.Sprintf("gregor consume %.2fx of it", g.consCPU.med/fl.med), "-", "-"})
	}
	if base, ok := med["baseline"]; ok && gok {
		reportBaseline(&sum, g, base)
	}
	fmt.Fprint(os.Stdout, sum.String())
}

// baselineSlack is how far from 1x a gregor/baseline ratio may be and
// still say "no loss": rounds on this machine spread wider than that, so
// a smaller difference is not one the run can show.
const baselineSlack = 0.10

// reportBaseline adds the gregor/baseline rows: the same workload on the
// broker built from an earlier revision, in the same rounds.
func reportBaseline(sum *strings.Builder, g, base figures) {
	for _, f := range []struct {
		name         string
		g, base      spread
		higherBetter bool
	}{
		{"produce MB/s", g.prod, base.prod, true},
		{"consume MB/s", g.cons, base.cons, true},
		{"broker cpu-s per GB produced", g.prodCPU, base.prodCPU, false},
		{"broker cpu-s per GB consumed", g.consCPU, base.consCPU, false},
	} {
		if f.base.n == 0 || f.base.med <= 0 || f.g.n == 0 {
			continue
		}
		r := f.g.med / f.base.med
		ok, goal := r >= 1-baselineSlack, fmt.Sprintf(">= %.2fx baseline", 1-baselineSlack)
		if !f.higherBetter {
			ok, goal = r <= 1+baselineSlack, fmt.Sprintf("<= %.2fx baseline", 1+baselineSlack)
		}
		fmt.Fprintf(sum, "gregor/baseline %s %.2fx (no loss: %s)\n", f.name, r, goal)
		report(row{f.name + " vs baseline", f.g.format("%.2f"), f.base.format("%.2f"), ratioCell(f.g, f.base), goal, verdict(ok, "")})
	}
}

// figures are one broker's medians (and spreads) in BenchmarkBrokers.
type figures struct{ prod, cons, prodBusy, consBusy, prodCPU, consCPU spread }

// startTargets starts the named brokers (gregor, kfake, kfake-inproc),
// each stopped when b ends.
func startTargets(b *testing.B, names []string) []*target {
	targets := make([]*target, 0, len(names))
	b.Cleanup(func() {
		for _, t := range targets {
			if err := t.stop(); err != nil {
				b.Errorf("%s: stopping: %v", t.name, err)
			}
		}
	})
	for _, name := range names {
		switch name {
		case "gregor":
			targets = append(targets, startGregor(b))
		case "baseline":
			t := launchGregor(b, gregorSpec{bin: os.Getenv(envBaseline)})
			t.name = "baseline"
			targets = append(targets, t)
		case "kfake":
			targets = append(targets, startKfakeChild(b))
		case "kfake-inproc":
			targets = append(targets, startKfakeInProcess(b))
		}
	}
	return targets
}

// alternate runs one round of each target per round (the order reversed
// every other round, so that noise from the machine hits all alike) for
// GREGOR_BENCH_ROUNDS rounds (times b.N); no new round starts when it
// would overrun GREGOR_BENCH_BUDGET, so a busy machine cannot stretch
// `make bench` without bound, but the first always runs. It returns the
// rounds run, and says so when they are fewer than 5.
func alternate[T any](b *testing.B, s settings, targets []T, run func(round int, t T)) int {
	rounds, start, longest := 0, time.Now(), time.Duration(0)
	for r := range s.rounds * b.N {
		if r > 0 && time.Since(start)+longest > s.budget {
			break
		}
		roundStart := time.Now()
		rounds++
		order := slices.Clone(targets)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, t := range order {
			run(r, t)
		}
		longest = max(longest, time.Since(roundStart))
	}
	if rounds < 5 {
		fmt.Printf("%s: only %d rounds: fewer than 5, the medians are weak\n", b.Name(), rounds)
	}
	return rounds
}

// busy is a phase's client-core busy fraction, for spreadOver.
func busy(r phaseResult) float64 { return r.clientBusy }

// brokerBusy is the share of a phase the broker processes spent on CPU
// (of one core: they share the brokers' core when pinned).
func brokerBusy(r phaseResult) float64 {
	if r.elapsed <= 0 {
		return -1
	}
	return r.brokerCPU.Seconds() / r.elapsed.Seconds()
}

// percent is a spread of busy fractions in per cent.
func percent(s spread) string {
	if s.n == 0 || s.med < 0 {
		return "-"
	}
	return spread{100 * s.med, 100 * s.lo, 100 * s.hi, s.n}.format("%.0f%%")
}

// kfakeCell is a kfake figure's cell, "-" where kfake did not run.
func kfakeCell(ran bool, s spread, verb string) string {
	if !ran {
		return "-"
	}
	return s.format(verb)
}
