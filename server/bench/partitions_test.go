package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const envPartitions = "GREGOR_BENCH_PARTITIONS"

// BenchmarkPartitions is one broker holding many partitions
// (GREGOR_BENCH_PARTITIONS, default 10,000; 500 makes a quick smoke run):
// a "wide" topic with that many and the usual 6-partition "narrow" one,
// both on one gregor whose data directory is on a real disk. Both get
// records from a round-robin partitioner (every record to the next
// partition, so the wide topic's records are spread over all its
// partitions), acks=all, linger 1 ms. Before the rounds, every wide
// partition gets records, so the logs are all on disk. Each round then
// restarts gregor and times its start, from exec until Metadata lists
// every wide partition with a leader (goal < 2 s): an even round's after
// a clean stop, an odd round's after kill -9 (its logs recovered as after
// a crash, from the records the round before wrote); produces
// GREGOR_BENCH_RECORDS records into each topic (the order alternating);
// and reads the process's peak RSS, VmHWM (goal < 1 GB). The rate figure
// is wide over narrow (goal >= 50%); the broker's CPU-s per GB of each,
// and how busy its core was over the wide topic, are printed beside it:
// a client spreading records one by one over 10,000 partitions sends
// batches of one record, and kgo's own work per batch can leave the
// broker's core mostly idle with the client's below 90% busy. After each
// of gregor's phases the spread write floor (floor_test.go) writes its
// bytes again as the broker must: a write per record over the wide
// topic's partitions, a write per 1 MiB batch over the narrow one's.
// The ratio's two bounds are printed as rows of their own: the wide rate
// of a broker core doing only those writes, and of a client core busy
// all the phase at kgo's cost per byte, each over the narrow rate. The
// narrow phase is the client's to pace, not the kernel's: the two
// floors over each other would bound a ratio of two broker-bound phases,
// which this is not.
// kfake, if it runs, does the same but for the restart (it keeps nothing
// to start from), so its peak RSS is its one process's peak so far.
func BenchmarkPartitions(b *testing.B) {
	only(b, "partitions")
	s := loadSettings(b)
	wide := int32(10_000)
	if v := os.Getenv(envPartitions); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("%s=%q: want a positive integer", envPartitions, v)
		}
		wide = int32(n)
	}
	ctx := context.Background()
	dir, fs := diskDataDir(b)
	spec := gregorSpec{dataDir: filepath.Join(dir, "data")}
	fmt.Printf("open files allowed per process: %s (a partition's log holds a few open)\n", openFilesLimit())
	var targets []*target
	// failed is why a broker could not hold the partitions: it is then
	// left out of the rounds, and its cells in the table say why.
	failed := map[string]error{}
	for _, name := range s.brokers {
		var t *target
		switch name {
		case "gregor":
			t = launchGregor(b, spec)
		case "kfake":
			t = startKfakeChild(b)
		default:
			continue // kfake-inproc: its RSS would be this process's
		}
		if err := fillWide(ctx, t, wide, s); err != nil {
			fmt.Printf("\n!!! %s could not hold %d partitions: %v !!!\n\n", t.name, wide, err)
			failed[t.name] = err
			if err := t.stop(); err != nil {
				b.Logf("%s: stopping: %v", t.name, err)
			}
			continue
		}
		targets = append(targets, t)
	}
	b.Cleanup(func() {
		for _, t := range targets {
			if err := t.stop(); err != nil {
				b.Errorf("%s: stopping: %v", t.name, err)
			}
		}
	})
	type runs struct {
		wide, narrow []phaseResult
		start, rss   []float64
		crashStart   []float64 // the starts after kill -9
	}
	results := map[string]*runs{}
	for _, t := range targets {
		results[t.name] = &runs{}
	}
	// The kernel's part of each gregor phase (floor_test.go), on the same
	// disk: its bytes written again, one record per write over as many
	// files as the wide topic has partitions, or 1 MiB per write over 6.
	floorChild := startChild(b, "floor", envFloorChild, "TMPDIR="+dir)
	b.Cleanup(func() { _ = floorChild.stop() })
	floors := map[string][]phaseResult{}
	// kernelCap is, round by round, the wide rate of a broker core that
	// did nothing but the wide floor's writes, over the narrow rate
	// measured: the most the goal's ratio could be, whatever else the
	// broker did.
	var kernelCap []float64
	rounds := alternate(b, s, targets, func(r int, t *target) {
		res := results[t.name]
		if t.name == "gregor" {
			crash := r%2 == 1
			if crash {
				t.crash()
			}
			if err := t.stop(); err != nil {
				b.Fatal(err)
			}
			began := time.Now()
			*t = *launchGregor(b, spec)
			if err := waitLeaders(ctx, t.addr, "wide", wide, time.Minute); err != nil {
				b.Fatalf("restart %d: %v", r+1, err)
			}
			if took := time.Since(began).Seconds(); crash {
				res.crashStart = append(res.crashStart, took)
			} else {
				res.start = append(res.start, took)
			}
		}
		measured := map[string]phaseResult{} // this round's floors
		var narrow phaseResult               // and its narrow phase
		for _, topic := range []string{"wide", "narrow", "wide"}[r%2 : r%2+2] {
			p, err := produce(ctx, t.addr, topic, s.records, s.phase, t.pids(), roundRobin)
			if err != nil {
				b.Fatalf("%s, round %d, %s: %v", t.name, r+1, topic, err)
			}
			if topic == "wide" {
				res.wide = append(res.wide, p)
			} else {
				res.narrow = append(res.narrow, p)
				narrow = p
			}
			if t.name == "gregor" {
				f, err := spreadFloor(floorChild, topic, p.bytes, wide)
				if err != nil { // past the open-files limit, say: the broker's figures still stand
					fmt.Printf("\n!!! round %d, %s: no kernel floor: %v !!!\n\n", r+1, topic, err)
					continue
				}
				measured[topic] = f
			}
		}
		if len(measured) == 2 { // a round's floors count in pairs
			for topic, f := range measured {
				floors[topic] = append(floors[topic], f)
			}
			kernelCap = append(kernelCap, 1000/measured["wide"].cpuPerGB()/narrow.mbps())
		}
		res.rss = append(res.rss, float64(peakRSS(t.pid))/(1<<20))
	})
	b.ReportMetric(0, "ns/op")
	fmt.Printf("\n%d partitions on one broker (data on %s): %d x %d B records per topic and round, round-robin, acks=all; median (min-max) of %d rounds\n",
		wide, fs, s.records, recordSize, rounds)
	fmt.Printf("%-13s %-22s %-22s %-22s %-22s %-22s %-22s %-18s %-18s %-18s\n", "broker", "start s", "peak RSS MiB",
		fmt.Sprintf("%d-partition MB/s", wide), "6-partition MB/s", "cpu-s/GB wide", "cpu-s/GB 6",
		"client core wide", "client core 6", "broker core wide")
	cells := map[string][4]spread{}
	for _, t := range targets {
		res := results[t.name]
		c := [4]spread{spreadOf(res.start), spreadOf(res.rss), spreadOver(res.wide, phaseResult.mbps), spreadOver(res.narrow, phaseResult.mbps)}
		cells[t.name] = c
		fmt.Printf("%-13s %-22s %-22s %-22s %-22s %-22s %-22s %-18s %-18s %-18s\n", t.name, c[0].format("%.2f"), c[1].format("%.0f"),
			c[2].format("%.1f"), c[3].format("%.1f"),
			spreadOver(res.wide, phaseResult.cpuPerGB).format("%.2f"), spreadOver(res.narrow, phaseResult.cpuPerGB).format("%.2f"),
			percent(spreadOver(res.wide, busy)), percent(spreadOver(res.narrow, busy)), percent(spreadOver(res.wide, brokerBusy)))
	}
	fmt.Printf("the kernel's writes alone (floor_test.go), cpu-s per GB: one %d B write per file over %d files %s, 1 MiB writes over %d %s\n",
		recordSize, wide, spreadOver(floors["wide"], phaseResult.cpuPerGB).format("%.2f"),
		partitions, spreadOver(floors["narrow"], phaseResult.cpuPerGB).format("%.2f"))
	// overNarrow is, round by round, f of the wide phase over the narrow
	// phase's MB/s, leaving out the rounds where f is unknown (0).
	overNarrow := func(res *runs, f func(phaseResult) float64) spread {
		if res == nil {
			return spread{}
		}
		var xs []float64
		for i, w := range res.wide {
			if v := f(w); v > 0 {
				xs = append(xs, v/res.narrow[i].mbps())
			}
		}
		return spreadOf(xs)
	}
	// clientMax is the wide MB/s of a client whose core was busy all the
	// phase at the cost per byte it had: kgo's bound, whatever the broker
	// did.
	clientMax := func(w phaseResult) float64 {
		if w.clientBusy <= 0 {
			return 0
		}
		return w.mbps() / w.clientBusy
	}
	// cell is a broker's figure, or why it has none.
	cell := func(name string, s spread, verb string) string {
		if err := failed[name]; err != nil {
			return "failed: " + err.Error()
		}
		if _, ran := results[name]; !ran {
			return "-"
		}
		return s.format(verb)
	}
	g, k := cells["gregor"], cells["kfake"]
	gw, kw := overNarrow(results["gregor"], phaseResult.mbps), overNarrow(results["kfake"], phaseResult.mbps)
	load, clientBound := "client core: unknown", false
	if res := results["gregor"]; res != nil {
		load, clientBound = clientLoad(spreadOver(res.wide, busy).med, spreadOver(res.narrow, busy).med)
		load += fmt.Sprintf("; broker core %s busy over the wide topic", percent(spreadOver(res.wide, brokerBusy)))
	}
	notCounted, rates := "", ""
	if clientBound {
		notCounted = "client-bound"
	}
	if gw.n > 0 {
		rates = fmt.Sprintf(" (%.1f / %.1f MB/s)", g[2].med, g[3].med)
	}
	report(row{fmt.Sprintf("start with %d partitions on disk, s", wide), cell("gregor", g[0], "%.2f"), "- (nothing to start from)", "-", "< 2 s",
		verdict(g[0].n > 0 && g[0].med < 2, "")})
	var crashed spread
	if res := results["gregor"]; res != nil {
		crashed = spreadOf(res.crashStart)
	}
	report(row{fmt.Sprintf("start with %d partitions on disk after kill -9, s", wide), cell("gregor", crashed, "%.2f"),
		"- (nothing to start from)", "-", "< 2 s", verdict(crashed.n > 0 && crashed.med < 2, "")})
	report(row{fmt.Sprintf("peak RSS with %d partitions, MiB", wide), cell("gregor", g[1], "%.0f"), cell("kfake", k[1], "%.0f"), ratioCell(g[1], k[1]),
		"< 1024 MiB", verdict(g[1].n > 0 && g[1].med < 1024, "")})
	report(row{fmt.Sprintf("produce MB/s over %d partitions / over 6", wide),
		cell("gregor", gw, "%.2fx") + rates,
		cell("kfake", kw, "%.2fx"), ratioCell(g[2], k[2]) + " (wide MB/s)", ">= 0.50x",
		verdict(gw.n > 0 && gw.med >= 0.5, notCounted) + " (" + load + ")"})
	report(row{fmt.Sprintf("at most, by the kernel: MB/s over %d / over 6 of a broker core only writing", wide),
		cell("gregor", spreadOf(kernelCap), "%.2fx"), "-", "-", "-", "-"})
	report(row{fmt.Sprintf("at most, by the client: MB/s over %d / over 6 of its core all busy", wide),
		cell("gregor", overNarrow(results["gregor"], clientMax), "%.2fx"), "-", "-", "-", "-"})
}

// spreadFloor is the kernel's part (floor_test.go) of a phase that
// produced n bytes into topic: a write per record over as many files as
// the wide topic's partitions, or a write per 1 MiB batch over the
// narrow topic's 6.
func spreadFloor(child *target, topic string, n int64, wide int32) (phaseResult, error) {
	if topic == "narrow" {
		return measureFloor(child, 'p', n, partitions, floorChunk)
	}
	return measureFloor(child, 'p', n, uint32(wide), recordSize)
}

// fillWide creates the wide and the narrow topic on t, waits for every
// wide partition to be led, and gives each a record.
func fillWide(ctx context.Context, t *target, wide int32, s settings) error {
	created := time.Now()
	for topic, n := range map[string]int32{"wide": wide, "narrow": partitions} {
		if err := makeTopic(ctx, t.addr, topic, n, 1, nil); err != nil {
			return err
		}
	}
	if err := waitLeaders(ctx, t.addr, "wide", wide, time.Minute); err != nil {
		return err
	}
	fmt.Printf("%s: %d partitions created and led in %v\n", t.name, wide, time.Since(created).Round(time.Millisecond))
	if _, err := produce(ctx, t.addr, "wide", int(wide), s.phase, nil, roundRobin); err != nil {
		return fmt.Errorf("filling every wide partition: %w", err)
	}
	return nil
}

// roundRobin sends every record to the next partition.
var roundRobin = kgo.RecordPartitioner(kgo.RoundRobinPartitioner())

// waitLeaders polls Metadata until topic has n partitions, each with a
// leader.
func waitLeaders(ctx context.Context, addr, topic string, n int32, limit time.Duration) error {
	return waitPartitions(ctx, addr, topic, n, limit, func(p kmsg.MetadataResponseTopicPartition) bool { return p.Leader >= 0 })
}

// waitPartitions polls Metadata until topic has n partitions that ok
// accepts.
func waitPartitions(ctx context.Context, addr, topic string, n int32, limit time.Duration, ok func(kmsg.MetadataResponseTopicPartition) bool) error {
	cl, err := kgo.NewClient(seeds(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	deadline := time.Now().Add(limit)
	for {
		md, err := freshMetadata(ctx, cl, topic)
		good := int32(0)
		if err == nil {
			for _, t := range md.Topics {
				if t.Topic == nil || *t.Topic != topic || t.ErrorCode != 0 {
					continue
				}
				for _, p := range t.Partitions {
					if p.ErrorCode == 0 && ok(p) {
						good++
					}
				}
			}
			if good == n {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: %d of %d partitions ready after %v (last error: %v)", topic, good, n, limit, err)
		}
		time.Sleep(10 * time.Millisecond) // polling another process's state; nothing to wait on
	}
}
