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
	s := loadSettings(b)
	ctx := context.Background()
	targets := make([]*target, 0, len(s.brokers))
	defer func() {
		for _, t := range targets {
			if err := t.stop(); err != nil {
				b.Errorf("%s: stopping: %v", t.name, err)
			}
		}
	}()
	for _, name := range s.brokers {
		switch name {
		case "gregor":
			targets = append(targets, startGregor(b))
		case "kfake":
			targets = append(targets, startKfakeChild(b))
		case "kfake-inproc":
			targets = append(targets, startKfakeInProcess(b))
		}
	}
	type runs struct{ prod, cons []phaseResult }
	results := map[string]*runs{}
	for _, t := range targets {
		results[t.name] = &runs{}
	}
	// Rounds stop early when the next one would overrun the budget, so a
	// busy machine cannot stretch `make bench` without bound; the first
	// round always runs.
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
			prod, cons, err := runWorkload(ctx, t, fmt.Sprintf("bench-%d", r), s)
			if err != nil {
				b.Fatalf("%s, round %d: %v", t.name, r+1, err)
			}
			results[t.name].prod = append(results[t.name].prod, prod)
			results[t.name].cons = append(results[t.name].cons, cons)
		}
		longest = max(longest, time.Since(roundStart))
	}
	b.ReportMetric(0, "ns/op") // the wall time of one op means nothing here

	var sum strings.Builder
	fmt.Fprintf(&sum, "\n%d x %d B records, %d partitions, acks=all, kgo; median of %d rounds (of %d asked; budget %v)\n",
		s.records, recordSize, partitions, rounds, s.rounds*b.N, s.budget)
	fmt.Fprintf(&sum, "%-13s %12s %13s %12s %13s %22s %22s %13s %13s\n",
		"broker", "produce MB/s", "produce rec/s", "consume MB/s", "consume rec/s",
		"produce MB/s per round", "consume MB/s per round", "cpu-s/GB prod", "cpu-s/GB cons")
	med := map[string][2]phaseResult{}
	for _, t := range targets {
		r := results[t.name]
		p, c := median(r.prod), median(r.cons)
		med[t.name] = [2]phaseResult{p, c}
		fmt.Fprintf(&sum, "%-13s %12.1f %13.0f %12.1f %13.0f %22s %22s %13s %13s\n",
			t.name, p.mbps(), p.recps(), c.mbps(), c.recps(),
			rates(r.prod), rates(r.cons), cpuCell(r.prod), cpuCell(r.cons))
		b.ReportMetric(p.mbps(), t.name+"-produce-MB/s")
		b.ReportMetric(c.mbps(), t.name+"-consume-MB/s")
	}
	g, gok := med["gregor"]
	k, kok := med["kfake"]
	if !kok {
		k, kok = med["kfake-inproc"]
	}
	if gok && kok && k[0].mbps() > 0 && k[1].mbps() > 0 {
		pr, cr := g[0].mbps()/k[0].mbps(), g[1].mbps()/k[1].mbps()
		b.ReportMetric(pr, "produce-gregor/kfake")
		b.ReportMetric(cr, "consume-gregor/kfake")
		fmt.Fprintf(&sum, "gregor/kfake  produce %.2fx  consume %.2fx  (goal: >= 1.00x on both)\n", pr, cr)
	}
	fmt.Fprint(os.Stdout, sum.String())
}

// rates lists each round's MB/s.
func rates(rs []phaseResult) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.0f", r.mbps())
	}
	return strings.Join(parts, " ")
}

// cpuCell is the broker's CPU seconds per GB over all rounds.
func cpuCell(rs []phaseResult) string {
	var all phaseResult
	for _, r := range rs {
		all.add(r)
	}
	if all.brokerCPU <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", all.cpuPerGB())
}
