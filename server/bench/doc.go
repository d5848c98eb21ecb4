// Package bench measures Gregor against franz-go's in-memory kfake broker.
//
// `make bench` runs BenchmarkBrokers: for each broker it creates a topic
// with 6 partitions, produces 1 KiB records with a franz-go (kgo) idempotent
// producer (acks=all), then consumes them all from the start with a fresh
// client, and prints produce and consume rates and the gregor/kfake ratios.
// It does this for several rounds, alternating the brokers, and reports the
// median round of each: the machine's noise (and kfake's heap warming up in
// its first round) then moves neither figure much.
// Both brokers run as separate processes (Gregor as the real binary built
// from ./server/cmd/gregor, file-backed in a temporary directory; kfake as a
// re-exec of the test binary), so the client costs the same on both sides.
//
// Environment:
//
//	GREGOR_BENCH_RECORDS   records per broker (default 200000)
//	GREGOR_BENCH_ROUNDS    rounds per broker; the median is reported (default 5)
//	GREGOR_BENCH_BUDGET    no new round starts past this (default 75s; the
//	                       first round always runs)
//	GREGOR_BENCH_PHASE     time bound of one produce or consume phase (default 20s)
//	GREGOR_BENCH_BROKERS   comma list from gregor, kfake, kfake-inproc
//	                       (default "gregor,kfake")
//	GREGOR_BENCH_BIN       a prebuilt gregor binary to use instead of building one
//
// BenchmarkSoak (soak_test.go) is not a speed test: for
// GREGOR_SOAK_DURATION (default 60s) 100 idempotent producers and 100
// tailing consumers work while other connections send garbage, stall in
// the middle of a 50 MiB request and flood the HTTP replay; it reports the
// broker's peak RSS and the longest ack wait, and fails if an acknowledged
// record is missing afterwards (GREGOR_SOAK_ABUSE=off: the same clients
// without the abusers, for comparison).
//
// BenchmarkLiveWatcher (live_test.go) and BenchmarkMetricsCost
// (metrics_test.go) run one workload on gregor two ways, side by side, and
// report the ratio: with a /live watcher or without; keeping the
// Prometheus metrics or started with --http.metrics.enable false.
//
// micro_test.go measures the per-byte steps of the hot path (CRC check,
// request decoding, response encoding). inprocess_test.go (build tag
// gregorprofile) starts Gregor inside the test process so that a CPU profile
// sees the broker's stacks; see BenchmarkGregorInProcess.
//
// # Invariants
//
//   - Every consumed record is checked: per partition, offsets are contiguous
//     from 0, and each value is 1 KiB. A broker that loses, duplicates or
//     reorders records fails the benchmark instead of scoring well.
//   - Records are uncompressed and their values random, so the bytes on the
//     wire are the payload the rates count (1 MB = 1e6 bytes of values).
package bench
