package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// BenchmarkMetricsCost is what the Prometheus metrics cost the produce
// path: two gregor processes side by side, one keeping its metrics (every
// request counted and timed per API and version, bytes in per topic, each
// fsync timed: registered and updated, nobody scraping) and one started
// with --http.metrics.enable false, the same produce workload on each in
// every round (the order alternating), the medians and their ratio. Two
// batch sizes: kgo's ~1 MB batches (few requests) and 16 KiB batches (~64
// times the requests, where a per-request cost would show). It checks
// that the one counted Produce requests and the other serves no
// /metrics, and asserts nothing about the rates.
func BenchmarkMetricsCost(b *testing.B) {
	only(b, "metrics")
	s := loadSettings(b)
	ctx := context.Background()
	on, off := startGregor(b), startGregor(b, "--http.metrics.enable", "false")
	defer func() {
		for _, g := range []*target{on, off} {
			if err := g.stop(); err != nil {
				b.Error(err)
			}
		}
	}()
	workloads := []struct {
		name string
		opts []kgo.Opt
	}{
		{"1 MB batches", nil},
		{"16 KiB batches", []kgo.Opt{kgo.ProducerBatchMaxBytes(16 << 10)}},
	}
	type key struct {
		workload int
		metrics  bool
	}
	results := map[key][]phaseResult{}
	for r := range s.rounds * b.N {
		for w, wl := range workloads {
			for _, metrics := range []bool{r%2 == 0, r%2 == 1} {
				g := off
				if metrics {
					g = on
				}
				topic := fmt.Sprintf("metrics-%d-%d", r, w)
				if err := createTopic(ctx, g.addr, topic); err != nil {
					b.Fatal(err)
				}
				res, err := produce(ctx, g.addr, topic, s.records, s.phase, g.pids(), wl.opts...)
				if err != nil {
					b.Fatalf("round %d, %s, metrics %t: %v", r+1, wl.name, metrics, err)
				}
				results[key{w, metrics}] = append(results[key{w, metrics}], res)
				if err := deleteTopic(ctx, g.addr, topic); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	if n := scrapeProduceRequests(b, on.http); n == 0 {
		b.Fatal("the broker keeping metrics counted no Produce request")
	}
	if code := httpStatus(b, "http://"+off.http+"/metrics"); code != http.StatusNotFound {
		b.Fatalf("the broker without metrics answers /metrics with %d, want 404", code)
	}
	b.ReportMetric(0, "ns/op")
	fmt.Fprintf(os.Stdout, "\nmetrics cost: %d x %d B records produced (acks=all, kgo), %d partitions, median of %d rounds\n"+
		"%-16s %-12s %12s %13s %9s\n", s.records, recordSize, partitions, len(results[key{0, true}]),
		"batches", "metrics", "produce MB/s", "produce rec/s", "cpu-s/GB")
	// CPU per GB over all rounds: one phase's CPU is too few 10 ms ticks.
	cpu := func(rs []phaseResult) float64 {
		var all phaseResult
		for _, r := range rs {
			all.add(r)
		}
		return all.cpuPerGB()
	}
	for w, wl := range workloads {
		with, without := median(results[key{w, true}]), median(results[key{w, false}])
		cpuWith, cpuWithout := cpu(results[key{w, true}]), cpu(results[key{w, false}])
		fmt.Fprintf(os.Stdout, "%-16s %-12s %12.1f %13.0f %9.2f\n%-16s %-12s %12.1f %13.0f %9.2f\n",
			wl.name, "kept", with.mbps(), with.recps(), cpuWith, wl.name, "off", without.mbps(), without.recps(), cpuWithout)
		ratio := with.mbps() / without.mbps()
		fmt.Fprintf(os.Stdout, "%-16s kept/off: produce %.3fx, cpu-s/GB %.3fx; median (min-max) kept %s, off %s MB/s\n",
			wl.name, ratio, cpuWith/cpuWithout, spreadOver(results[key{w, true}], phaseResult.mbps).format("%.0f"),
			spreadOver(results[key{w, false}], phaseResult.mbps).format("%.0f"))
		b.ReportMetric(ratio, "produce-metrics/none-"+strings.Fields(wl.name)[0])
	}
}

// scrapeProduceRequests is gregor_requests_total of Produce, summed over
// versions, from a scrape of /metrics.
func scrapeProduceRequests(tb testing.TB, httpAddr string) float64 {
	return scrape(tb, httpAddr, `gregor_requests_total{api="Produce"`)
}

// scrapeBody is the text of /metrics.
func scrapeBody(tb testing.TB, httpAddr string) string {
	resp, err := http.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return string(body)
}

// scrape sums the samples of /metrics whose line starts with series.
func scrape(tb testing.TB, httpAddr, series string) float64 {
	var n float64
	for _, line := range strings.Split(scrapeBody(tb, httpAddr), "\n") {
		if rest, ok := strings.CutPrefix(line, series); ok {
			var v float64
			if _, err := fmt.Sscan(rest[strings.LastIndexByte(rest, ' ')+1:], &v); err == nil {
				n += v
			}
		}
	}
	return n
}

// histogram is one Prometheus histogram as /metrics shows it: the
// cumulative count under each bucket bound, and the sum and count.
type histogram struct {
	le         []float64 // bucket bounds, ascending (+Inf last)
	cum        []float64 // observations at or under each bound
	sum, count float64
}

// scrapeHistogram reads the histogram name (one without labels).
func scrapeHistogram(tb testing.TB, httpAddr, name string) histogram {
	var h histogram
	for _, line := range strings.Split(scrapeBody(tb, httpAddr), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		switch series := f[0]; {
		case series == name+"_sum":
			h.sum = v
		case series == name+"_count":
			h.count = v
		case strings.HasPrefix(series, name+`_bucket{le="`):
			bound, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(series, name+`_bucket{le="`), `"}`), 64)
			if err != nil {
				tb.Fatalf("%s: bucket %q", name, series)
			}
			h.le, h.cum = append(h.le, bound), append(h.cum, v)
		}
	}
	return h
}

// minus is what was observed since an earlier scrape of the same histogram.
func (h histogram) minus(earlier histogram) histogram {
	d := histogram{le: h.le, sum: h.sum - earlier.sum, count: h.count - earlier.count}
	for i := range h.cum {
		c := h.cum[i]
		if i < len(earlier.cum) {
			c -= earlier.cum[i]
		}
		d.cum = append(d.cum, c)
	}
	return d
}

// quantileBound is the smallest bucket bound at or under which a q share
// of the observations fell (+Inf if only the last bucket holds them).
func (h histogram) quantileBound(q float64) float64 {
	for i, c := range h.cum {
		if c >= q*h.count {
			return h.le[i]
		}
	}
	return math.Inf(1)
}

func httpStatus(tb testing.TB, url string) int {
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
