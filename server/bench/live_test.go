package bench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// BenchmarkLiveWatcher is the live trace's cost to the broker: the same
// produce workload on one gregor with nobody watching and with a /live
// watcher connected (reading everything, no filter), alternating, the
// medians side by side. Nobody watching should cost nothing measurable
// (the hook is one atomic load); a watcher costs the events' building
// and sending. It reports rates, and asserts nothing about them.
func BenchmarkLiveWatcher(b *testing.B) {
	only(b, "live")
	s := loadSettings(b)
	ctx := context.Background()
	g := startGregor(b)
	defer func() {
		if err := g.stop(); err != nil {
			b.Error(err)
		}
	}()
	results := map[bool][]phaseResult{}
	var skipped []string
	for r := range s.rounds * b.N {
		for _, watched := range []bool{r%2 == 0, r%2 == 1} {
			topic := fmt.Sprintf("live-%d-%t", r, watched)
			if err := createTopic(ctx, g.addr, topic); err != nil {
				b.Fatal(err)
			}
			var stop func() string
			if watched {
				stop = watch(b, g.http)
			}
			res, err := produce(ctx, g.addr, topic, s.records, s.phase, g.pids())
			if watched {
				skipped = append(skipped, stop())
			}
			if err != nil {
				b.Fatalf("round %d, watched %t: %v", r+1, watched, err)
			}
			results[watched] = append(results[watched], res)
			if err := deleteTopic(ctx, g.addr, topic); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(0, "ns/op")
	off, on := median(results[false]), median(results[true])
	fmt.Fprintf(os.Stdout, "\nlive trace: %d x %d B records produced (acks=all, kgo), median (min-max) of %d rounds\n"+
		"%-22s %-24s %-20s\n%-22s %-24s %-20s\n%-22s %-24s %-20s\n"+
		"watched/unwatched: %.2fx; the watcher's skipped counter per round: %s\n",
		s.records, recordSize, len(results[false]),
		"", "produce MB/s", "cpu-s/GB",
		"nobody watching", spreadOver(results[false], phaseResult.mbps).format("%.1f"), spreadOver(results[false], phaseResult.cpuPerGB).format("%.2f"),
		"one /live watcher", spreadOver(results[true], phaseResult.mbps).format("%.1f"), spreadOver(results[true], phaseResult.cpuPerGB).format("%.2f"),
		on.mbps()/off.mbps(), strings.Join(skipped, " "))
	b.ReportMetric(off.mbps(), "unwatched-produce-MB/s")
	b.ReportMetric(on.mbps(), "watched-produce-MB/s")
}

// watch connects a /live watcher that reads everything until stopped;
// stop returns the last skipped count it was told.
func watch(tb testing.TB, httpAddr string) (stop func() string) {
	ctx, cancel := context.WithCancel(context.Background())
	c, _, err := websocket.Dial(ctx, "ws://"+httpAddr+"/live/ws", nil)
	if err != nil {
		tb.Fatalf("dial /live/ws: %v", err)
	}
	c.SetReadLimit(1 << 20)
	done := make(chan string)
	go func() {
		last := "0"
		for {
			_, data, err := c.Read(ctx)
			if err != nil {
				done <- last
				return
			}
			if rest, ok := strings.CutPrefix(string(data), `{"type":"skipped","skipped":`); ok {
				last = strings.TrimSuffix(rest, "}")
			}
		}
	}()
	return func() string {
		cancel()
		c.CloseNow()
		return <-done
	}
}
