// Package bench measures Gregor against franz-go's in-memory kfake broker.
//
// `make bench` runs every benchmark here; GREGOR_BENCH_ONLY (a comma list
// of brokers, latency, fsync, partitions, cluster, live, metrics, soak)
// runs only those named, and `-bench Latency` works as usual. Each
// benchmark prints its own section, and at the very end TestMain prints
// one table of every figure that ran:
//
//	figure | gregor | kfake | ratio | goal | met?
//
// where each cell is the median over alternating rounds with its range,
// "12.3 (11.8-13.0)", the ratio is gregor's median over kfake's (or over
// the Gregor baseline the row names), and met? is yes or no for the
// median against the goal. Nothing fails on a slow figure; records lost,
// duplicated or out of order still fail.
//
// The figures (goals from issue 23):
//
//   - BenchmarkBrokers (bench_test.go): for each broker a topic with 6
//     partitions, 1 KiB records from a franz-go (kgo) idempotent producer
//     (acks=all), then all consumed from the start with a fresh client;
//     produce and consume MB/s and the gregor/kfake ratios (goal >= 1x),
//     and broker CPU-s per GB produced (goal <= 1.0) and consumed (goal
//     <= 0.25), from the broker process's utime+stime in /proc. With
//     GREGOR_BENCH_BASELINE (`make bench BASELINE=<git rev>` builds that
//     revision's binary and sets it) the older broker runs in the same
//     rounds as "baseline", and rows "... vs baseline" give gregor's
//     figures over its (no loss: within 10% either way that is worse).
//     Right after each of gregor's consume phases, the same bytes go
//     again by loopback sendfile alone, from a child process on the
//     brokers' core (floor_test.go): the row "loopback sendfile alone"
//     is that floor, and gregor's CPU per GB consumed over it.
//   - BenchmarkProduceLatency (latency_test.go): p50 and p99 of acks=all
//     produce at a fixed 20,000 records/s, linger 0, from each record's
//     due time to its ack; gregor and kfake (goal p99 < 3 ms).
//   - BenchmarkFsyncProduce (fsync_test.go): 8 producers into a
//     flush.messages=1 topic vs an unsynced one, on a real disk, with
//     fsyncs/s from /metrics; Gregor only (goal >= 0.80x unsynced).
//   - BenchmarkPartitions (partitions_test.go): GREGOR_BENCH_PARTITIONS
//     (default 10,000) partitions on one broker: restart time after a
//     clean stop and after kill -9, in alternate rounds (goal < 2 s
//     each), peak RSS (goal < 1 GB), round-robin produce over all of
//     them vs over 6 (goal >= 0.50x). A broker that cannot create or
//     hold them (an open-files limit, say: it is printed) is left out and
//     its cells say "failed: " and why, instead of failing the run. After
//     each of gregor's phases its bytes are written again by the kernel
//     alone (floor_test.go), one record per write over as many files or
//     1 MiB per write over 6. Two rows bound the wide/narrow ratio from
//     each side, round by round, against the narrow rate measured: "at
//     most, by the kernel" is the wide rate of a broker core that did
//     nothing but those writes, and "at most, by the client" that of a
//     client core busy the whole phase at the CPU per byte kgo spent over
//     the wide topic.
//   - BenchmarkCluster (cluster_test.go): three brokers started as `make
//     cluster` starts them, RF=3, acks=all: broker CPU-s per GB
//     acknowledged summed over the three vs a single broker's (goal <= 3x).
//     After each phase the same bytes go again through the kernel's part
//     alone (floor_test.go): one broker's socket reads and writes after
//     the single broker's phases, three replicas' (and the leader's
//     sendfiles to two followers) after the cluster's; the "kernel
//     floor" row is the second, and its ratio to the first.
//
// Every broker runs as a process of its own (Gregor as the real binary
// built once from ./server/cmd/gregor, file-backed; kfake as a re-exec of
// the test binary), so the client costs the same on both sides. Rounds
// alternate the brokers (the order reversed every other round), so that
// the machine's noise (and kfake's heap warming up in its first round)
// hits both alike; a run of fewer than 5 rounds says so.
//
// # Pinning and the client's core
//
// On Linux with taskset and two cores, the test process (every client)
// is pinned to core 0 with `taskset -a -p` and GOMAXPROCS 1, and every
// broker process is started as `taskset -c 1 ...` (pinning_test.go). Each
// phase samples core 0's busy share from /proc/stat: that counts whatever
// ran on the core, the client and anything else on the machine. A
// throughput ratio counts only where the client's core was below 90%
// busy; above that the client set the pace, and the table says
// "not counted: client-bound" with the share. Without taskset or a second
// core nothing is pinned, a loud line says so, and the share is that of
// all cores.
//
// Environment:
//
//	GREGOR_BENCH_RECORDS   records per broker and phase (default 200000)
//	GREGOR_BENCH_ROUNDS    rounds per benchmark; the median is reported (default 5)
//	GREGOR_BENCH_BUDGET    no new round of a benchmark starts past this
//	                       (default 75s; the first round always runs)
//	GREGOR_BENCH_PHASE     time bound of one produce or consume phase (default 20s)
//	GREGOR_BENCH_BROKERS   comma list from gregor, kfake, kfake-inproc
//	                       (default "gregor,kfake")
//	GREGOR_BENCH_BIN       a prebuilt gregor binary to use instead of building one
//	GREGOR_BENCH_ONLY      comma list of the benchmarks to run (default all;
//	                       micro_test.go's always run: they take a second)
//	GREGOR_BENCH_LATENCY_DURATION  length of one latency round (default 5s)
//	GREGOR_BENCH_PARTITIONS        partitions of the wide topic (default 10000)
//	GREGOR_BENCH_DISK_DIR  where fsync and partitions keep their data
//	                       (default /var/tmp; refused if tmpfs or ramfs)
//
// A smoke run, seconds instead of minutes (its figures mean nothing):
//
//	GREGOR_BENCH_RECORDS=20000 GREGOR_BENCH_ROUNDS=2 GREGOR_BENCH_LATENCY_DURATION=2s \
//	  GREGOR_BENCH_PARTITIONS=500 GREGOR_BENCH_ONLY=brokers,latency,fsync,partitions,cluster \
//	  go test -run '^$' -bench . -benchtime 1x ./server/bench/
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
// # Where the broker's CPU goes (issue 23)
//
// Profiles of the gregor process during one phase (1 GB, 6 partitions,
// December 2026, Linux 6.18 on a 2-core VM) found, for consume, about 85%
// in sendfile(2) itself: on loopback the sender's system call runs the
// receiving side of TCP as well, and a standalone loop sending a cached
// file over loopback in 1 MiB sendfile calls was charged 0.14-0.3 CPU-s/GB,
// about the goal; measured in the same run as gregor since (the floor
// row), it was 0.34-0.39 and gregor's consume 1.12x of it. The vectored writes of the frames' other bytes are about
// 7%, and everything in user space (request decoding, the fetch plan,
// quotas, metrics, the runtime) under 10%. Sending those other bytes with
// MSG_MORE, to ride in the first packet of the range that follows, did not
// cost less (rather more). Each consume phase has a fixed cost under 2 ms;
// at 200,000 records the /proc figure moves in steps of 0.05 CPU-s/GB (one
// 10 ms tick), so read it as a median of many rounds.
//
// For produce, about 40% is the write(2) of the batches to the segment,
// 25% the socket read, 14% the CRC-32C check, and 15-20% the garbage of
// one fresh buffer per request frame (zeroing it, collections, the
// scavenger). A round that starts after the broker sat idle for seconds
// (as every BenchmarkBrokers round does while kfake runs) costs 0.5-0.7
// CPU-s/GB more than one right after another: a standalone program
// appending 512 MiB to a new file after 15 s idle was charged 0.9
// CPU-s/GB, and 0.2 when run again at once, so that part is most likely
// the VM reclaiming idle memory (virtio-balloon is loaded), not Gregor.
// GOGC=400 took warm rounds from about 1.25 to 0.8 CPU-s/GB but not the
// cold ones. Since then a produce frame from 64 KiB to 8 MiB is read into
// a pooled buffer of its size class, which goes back to the pool when the
// broker answers the request (server/frame_pool.go): on another 2-core
// VM, broker CPU per GB produced went from 0.73 to 0.54 (0.73x) in the
// same rounds (make bench BASELINE=<the commit before>, 7 rounds).
//
// For three brokers (BenchmarkCluster, all pinned to one core), a
// follower read each Fetch answer into a fresh buffer and copied each
// batch again before appending it, and the leader read the batches into
// another fresh buffer that kmsg copied into the frame: 1.3 GB allocated
// per 200 MB acknowledged, and 5.7-6.8 CPU-s/GB. Now a follower reads its
// answers into pooled frames and appends from them, and the leader sends
// pinned ranges with sendfile on the peer link (server/peer_fetch.go):
// under 40 MB allocated, 1.9-2.15 CPU-s/GB, 4.0-4.75x the single broker
// (December 2026). Of what is left, two thirds is the page-cache copy of
// the three replicas' writes (a follower's appends cost twice the
// leader's), then sendfile to the followers (9%), socket reads and the
// CRC-32C every replica checks, as Kafka's followers do.
//
// Which pages the kernel hands a write moves every per-GB figure on such
// a VM (its balloon reports free pages to the host, which takes them
// back): `dd` of 600 MB to a new file, pinned to one core, right after
// another 600 MB file was deleted took 0.07-0.09 s of system time; right
// after a 200 MB one was, 0.74-0.86 s. A cluster round writes three times
// the bytes of a single broker's, so more of its pages are ones the host
// must supply again. BenchmarkCluster's floors (floor_test.go) run right
// after the topic of the phase they follow is deleted. The same VM also
// runs DAMON with a pageout scheme (/sys/kernel/mm/damon/admin: pages
// idle for 60 s are reclaimed, up to 128 MiB/s), so a page cache left
// from an earlier benchmark is not there to reuse: in one full run the
// partitions floor's 1 MiB writes cost 1.71 CPU-s/GB, 0.24 when that
// benchmark ran alone.
//
// # Invariants
//
//   - Every consumed record is checked: per partition, offsets are contiguous
//     from 0, and each value is 1 KiB. A broker that loses, duplicates or
//     reorders records fails the benchmark instead of scoring well.
//   - Records are uncompressed and their values random, so the bytes on the
//     wire are the payload the rates count (1 MB = 1e6 bytes of values).
//   - Every produced record is acknowledged or the benchmark fails; CPU
//     per GB divides by acknowledged bytes only.
//   - No figure is asserted: goals are printed beside the figures.
package bench
