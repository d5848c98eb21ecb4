//go:build gregorprofile

package bench

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"testing"

	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/server"
)

// BenchmarkGregorInProcess runs the workload against a Gregor started in
// this process, so a CPU profile shows the broker's stacks next to the
// client's. It is behind a build tag so that `make bench` only depends on
// the gregor binary building. Profile one phase at a time:
//
//	GREGOR_BENCH_CPUPROFILE=/tmp/consume.out GREGOR_BENCH_PROFILE_PHASE=consume \
//	  go test -tags gregorprofile -run '^$' -bench GregorInProcess -benchtime 1x ./server/bench/
//	go tool pprof -top /tmp/consume.out
//
// (-cpuprofile works too but covers both phases and the set-up.)
// GREGOR_BENCH_DATA_DIR keeps the logs in a given directory.
func BenchmarkGregorInProcess(b *testing.B) {
	s := loadSettings(b)
	dataDir := os.Getenv("GREGOR_BENCH_DATA_DIR") // to inspect the logs afterwards
	if dataDir == "" {
		dataDir = b.TempDir()
	}
	srv, err := server.Start(server.Config{
		KafkaAddr: "127.0.0.1:0",
		HTTPAddr:  "127.0.0.1:0",
		DataDir:   dataDir,
		Settings:  config.NewBroker(),
		Logf:      func(string, ...any) {},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Errorf("server: %v", err)
		}
	}()
	t := &target{name: "gregor-inproc", addr: srv.KafkaAddr().String()}
	profPath, profPhase := os.Getenv("GREGOR_BENCH_CPUPROFILE"), os.Getenv("GREGOR_BENCH_PROFILE_PHASE")
	profile := func(phase string, run func() (phaseResult, error)) phaseResult {
		if profPath != "" && (profPhase == "" || profPhase == phase) {
			f, err := os.Create(profPath)
			if err != nil {
				b.Fatal(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				b.Fatal(err)
			}
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
		r, err := run()
		if err != nil {
			b.Fatalf("%s: %v", phase, err)
		}
		return r
	}
	var prod, cons phaseResult
	for i := 0; i < b.N; i++ {
		topic := fmt.Sprintf("bench-%d", i)
		if err := createTopic(ctx, t.addr, topic); err != nil {
			b.Fatal(err)
		}
		p := profile("produce", func() (phaseResult, error) {
			return produce(ctx, t.addr, topic, s.records, s.phase, nil)
		})
		prod.add(p)
		cons.add(profile("consume", func() (phaseResult, error) {
			return consume(ctx, t.addr, topic, p.records, s.phase, nil)
		}))
	}
	b.ReportMetric(0, "ns/op")
	b.ReportMetric(prod.mbps(), "produce-MB/s")
	b.ReportMetric(cons.mbps(), "consume-MB/s")
}
