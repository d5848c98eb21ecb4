package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	latencyRate = 20_000 // records per second
	envLatency  = "GREGOR_BENCH_LATENCY_DURATION"
	latencyGoal = 3 * time.Millisecond
)

// BenchmarkProduceLatency is produce latency at a fixed load: one
// idempotent producer (acks=all) with linger 0 sends 1 KiB records to the
// 6-partition topic at 20,000 records/s for GREGOR_BENCH_LATENCY_DURATION
// (default 5s) per round. Record i is due at start + i/20,000 s, and its
// latency runs from that due time (not from when Produce was called) to
// its ack, so that a stalled broker cannot hide its stall by slowing the
// sender (coordinated omission). Per round it takes p50 and p99 of every
// record; the figures are the medians over the alternating rounds, for
// gregor and kfake. Goal: gregor's p99 under 3 ms.
func BenchmarkProduceLatency(b *testing.B) {
	only(b, "latency")
	s := loadSettings(b)
	d := 5 * time.Second
	if v := os.Getenv(envLatency); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil || d <= 0 {
			b.Fatalf("%s=%q: want a positive duration", envLatency, v)
		}
	}
	ctx := context.Background()
	targets := startTargets(b, s.brokers)
	p50, p99, load := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	rounds := alternate(b, s, targets, func(r int, t *target) {
		topic := "latency-" + strconv.Itoa(r)
		if err := createTopic(ctx, t.addr, topic); err != nil {
			b.Fatal(err)
		}
		lat, busy, err := paced(ctx, t.addr, topic, d)
		if err != nil {
			b.Fatalf("%s, round %d: %v", t.name, r+1, err)
		}
		p50[t.name] = append(p50[t.name], ms(quantile(lat, 0.50)))
		p99[t.name] = append(p99[t.name], ms(quantile(lat, 0.99)))
		load[t.name] = append(load[t.name], busy)
		if err := deleteTopic(ctx, t.addr, topic); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(0, "ns/op")
	fmt.Printf("\nproduce latency: %d records/s of %d B for %v, linger 0, acks=all, %d partitions; median (min-max) of %d rounds\n",
		latencyRate, recordSize, d, partitions, rounds)
	fmt.Printf("%-13s %-24s %-24s %-18s\n", "broker", "p50 ms", "p99 ms", "client core")
	for _, t := range targets {
		fmt.Printf("%-13s %-24s %-24s %-18s\n", t.name, spreadOf(p50[t.name]).format("%.2f"),
			spreadOf(p99[t.name]).format("%.2f"), percent(spreadOf(load[t.name])))
		b.ReportMetric(spreadOf(p99[t.name]).med, t.name+"-p99-ms")
	}
	_, kok := p99["kfake"]
	for _, q := range []struct {
		name string
		xs   map[string][]float64
	}{{"p50", p50}, {"p99", p99}} {
		g, k := spreadOf(q.xs["gregor"]), spreadOf(q.xs["kfake"])
		goal, met := "-", "-"
		if q.name == "p99" {
			goal = fmt.Sprintf("< %v", latencyGoal)
			met = verdict(g.n > 0 && g.med < ms(latencyGoal), "")
		}
		report(row{"produce latency " + q.name + " ms at 20k rec/s", g.format("%.2f"), kfakeCell(kok, k, "%.2f"), ratioCell(g, k), goal, met})
	}
}

// paced produces at latencyRate for d and returns every record's latency
// from its due time to its ack, and the client core's busy share.
func paced(ctx context.Context, addr, topic string, d time.Duration) ([]time.Duration, float64, error) {
	cl, err := newProducer(ctx, addr, topic, kgo.ProducerLinger(0))
	if err != nil {
		return nil, 0, err
	}
	defer cl.Close()
	n := int(d.Seconds() * latencyRate)
	lat := make([]time.Duration, n)
	var (
		firstErr error
		errOnce  sync.Once
	)
	m := startMeter()
	start := time.Now()
	const interval = time.Second / latencyRate
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		if wait := time.Until(due); wait > 0 {
			time.Sleep(wait) // the pace is the workload, not a wait for a result
		}
		cl.Produce(ctx, &kgo.Record{Value: value(i)}, func(_ *kgo.Record, err error) {
			if err != nil {
				errOnce.Do(func() { firstErr = err })
			}
			lat[i] = time.Since(due)
		})
	}
	if err := cl.Flush(ctx); err != nil {
		return nil, 0, fmt.Errorf("flush: %w", err)
	}
	var res phaseResult
	m.stop(&res)
	if firstErr != nil {
		return nil, 0, fmt.Errorf("produce: %w", firstErr)
	}
	return lat, res.clientBusy, nil
}

// quantile is the q-quantile (nearest rank) of ds; it sorts ds.
func quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

func ms(d time.Duration) float64 { return d.Seconds() * 1e3 }

// ratioCell is gregor's median over kfake's, "-" without kfake.
func ratioCell(g, k spread) string {
	if k.n == 0 || k.med <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", g.med/k.med)
}
