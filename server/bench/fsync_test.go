package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

const fsyncProducers = 8

// BenchmarkFsyncProduce is what syncing every batch costs: one gregor
// whose data directory is on a real disk (see diskDataDir; the filesystem
// is printed), 8 idempotent producers (acks=all) side by side sending
// GREGOR_BENCH_RECORDS records in all, alternately to a topic with
// flush.messages=1 (every batch fsync'd before its ack; concurrent
// batches may share one fsync) and to one without. It reports both rates,
// their ratio (goal: synced >= 80% of unsynced) and the fsyncs per second
// during the synced phase, and the fsyncs' mean and p99 latency in it,
// from the gregor_fsync_duration_seconds histogram on /metrics (its
// buckets double, so the p99 is the bucket bound it falls under, within
// 2x).
// Gregor only: kfake keeps no files.
func BenchmarkFsyncProduce(b *testing.B) {
	only(b, "fsync")
	s := loadSettings(b)
	ctx := context.Background()
	dir, fs := diskDataDir(b)
	g := launchGregor(b, gregorSpec{dataDir: filepath.Join(dir, "data")})
	b.Cleanup(func() {
		if err := g.stop(); err != nil {
			b.Error(err)
		}
	})
	one := "1"
	results := map[bool][]phaseResult{}
	var syncsPerSec, syncMean, syncP99 []float64
	rounds := alternate(b, s, []bool{true, false}, func(r int, synced bool) {
		topic := fmt.Sprintf("fsync-%d-%t", r, synced)
		var configs map[string]*string
		if synced {
			configs = map[string]*string{"flush.messages": &one}
		}
		if err := makeTopic(ctx, g.addr, topic, partitions, 1, configs); err != nil {
			b.Fatal(err)
		}
		before := scrapeHistogram(b, g.http, "gregor_fsync_duration_seconds")
		res, err := produceParallel(ctx, g.addr, topic, fsyncProducers, s.records, s.phase, g.pids())
		if err != nil {
			b.Fatalf("round %d, flush.messages=1 %t: %v", r+1, synced, err)
		}
		if synced {
			h := scrapeHistogram(b, g.http, "gregor_fsync_duration_seconds").minus(before)
			syncsPerSec = append(syncsPerSec, h.count/res.elapsed.Seconds())
			if h.count > 0 {
				syncMean = append(syncMean, 1e3*h.sum/h.count)
				syncP99 = append(syncP99, 1e3*h.quantileBound(0.99))
			}
		}
		results[synced] = append(results[synced], res)
		if err := deleteTopic(ctx, g.addr, topic); err != nil {
			b.Fatal(err)
		}
	})
	b.ReportMetric(0, "ns/op")
	on, off := spreadOver(results[true], phaseResult.mbps), spreadOver(results[false], phaseResult.mbps)
	syncs := spreadOf(syncsPerSec)
	load, bound := clientLoad(spreadOver(results[true], busy).med, spreadOver(results[false], busy).med)
	fmt.Printf("\nfsync'd produce: %d x %d B records from %d producers, acks=all, %d partitions, data on %s (%s); median (min-max) of %d rounds\n"+
		"%-22s %-24s %-20s %-18s\n%-22s %-24s %-20s %-18s\n%-22s %-24s %-20s %-18s\nsynced/unsynced %.2fx (goal >= 0.80x; %s)\n",
		s.records, recordSize, fsyncProducers, partitions, fs, dir, rounds,
		"", "produce MB/s", "fsyncs/s", "client core",
		"flush.messages=1", on.format("%.1f"), syncs.format("%.0f"), percent(spreadOver(results[true], busy)),
		"unsynced", off.format("%.1f"), "-", percent(spreadOver(results[false], busy)),
		on.med/off.med, load)
	fmt.Printf("fsync latency, flush.messages=1: mean %s ms, p99 at most %s ms\n",
		spreadOf(syncMean).format("%.2f"), spreadOf(syncP99).format("%.1f"))
	b.ReportMetric(on.med/off.med, "synced/unsynced")
	notCounted := ""
	if bound {
		notCounted = "client-bound"
	}
	report(row{fmt.Sprintf("fsync'd produce MB/s, %d producers, flush.messages=1 (%s)", fsyncProducers, fs),
		on.format("%.1f"), "- (no fsync)", ratioCell(on, off) + " of unsynced " + off.format("%.1f"),
		">= 0.80x unsynced", verdict(on.med >= 0.8*off.med, notCounted) + " (" + load + ")"})
	report(row{"fsyncs per second, flush.messages=1", syncs.format("%.0f"), "-", "-", "-", "-"})
	report(row{"fsync latency ms, flush.messages=1: mean / p99 (at most)", spreadOf(syncMean).format("%.2f") + " / " + spreadOf(syncP99).format("%.1f"),
		"-", "-", "-", "-"})
}
