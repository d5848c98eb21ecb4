package bench

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	recordSize = 1024
	partitions = 6

	envRecords = "GREGOR_BENCH_RECORDS"
	envPhase   = "GREGOR_BENCH_PHASE"
	envBrokers = "GREGOR_BENCH_BROKERS"
	envBin     = "GREGOR_BENCH_BIN"
	envRounds  = "GREGOR_BENCH_ROUNDS"
	envBudget  = "GREGOR_BENCH_BUDGET"
	envOnly    = "GREGOR_BENCH_ONLY"
	// envBaseline names a gregor binary built from an earlier revision
	// (`make bench BASELINE=rev` builds it): BenchmarkBrokers then runs it
	// too, as the broker "baseline", and reports gregor/baseline.
	envBaseline = "GREGOR_BENCH_BASELINE"
	// envKfakeChild makes TestMain serve a kfake cluster instead of running
	// tests: the parent re-execs the test binary with it set.
	envKfakeChild = "GREGOR_BENCH_KFAKE_CHILD"
)

func TestMain(m *testing.M) {
	if os.Getenv(envKfakeChild) == "1" {
		os.Exit(serveKfakeChild())
	}
	if os.Getenv(envFloorChild) == "1" {
		os.Exit(serveSendfileFloor())
	}
	code := m.Run()
	printTable(os.Stdout)
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// serveKfakeChild runs a one-broker kfake cluster, prints its address on
// stdout and serves until the parent goes.
func serveKfakeChild() int {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		fmt.Fprintf(os.Stderr, "kfake: %v\n", err)
		return 1
	}
	defer c.Close()
	fmt.Printf("addr=%s\n", c.ListenAddrs()[0])
	waitForParent()
	return 0
}

// waitForParent returns once a child's stdin closes (the parent went
// away or stopped it) or a signal asks it to stop.
func waitForParent() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	stdinClosed := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stdinClosed) }()
	select {
	case <-stop:
	case <-stdinClosed:
	}
}

// settings are the knobs read from the environment.
type settings struct {
	records int
	phase   time.Duration
	rounds  int
	budget  time.Duration
	brokers []string
}

func loadSettings(tb testing.TB) settings {
	s := settings{records: 200_000, phase: 20 * time.Second, rounds: 5, budget: 75 * time.Second,
		brokers: []string{"gregor", "kfake"}}
	for env, dst := range map[string]*int{envRecords: &s.records, envRounds: &s.rounds} {
		if v := os.Getenv(env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				tb.Fatalf("%s=%q: want a positive integer", env, v)
			}
			*dst = n
		}
	}
	for env, dst := range map[string]*time.Duration{envPhase: &s.phase, envBudget: &s.budget} {
		if v := os.Getenv(env); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				tb.Fatalf("%s=%q: want a positive duration such as 20s", env, v)
			}
			*dst = d
		}
	}
	if v := os.Getenv(envBrokers); v != "" {
		s.brokers = nil
		for _, name := range strings.Split(v, ",") {
			switch name = strings.TrimSpace(name); name {
			case "gregor", "kfake", "kfake-inproc", "baseline":
				s.brokers = append(s.brokers, name)
			case "":
			default:
				tb.Fatalf("%s: unknown broker %q (want gregor, kfake, kfake-inproc, baseline)", envBrokers, name)
			}
		}
	}
	switch base := os.Getenv(envBaseline) != ""; {
	case base && !slices.Contains(s.brokers, "baseline"):
		s.brokers = append(s.brokers, "baseline")
	case !base && slices.Contains(s.brokers, "baseline"):
		tb.Fatalf("%s names the broker baseline but %s is not set (make bench BASELINE=rev sets it)", envBrokers, envBaseline)
	}
	pinClient()
	return s
}

// only skips b unless GREGOR_BENCH_ONLY is unset or names it (a comma
// list such as "brokers,latency"), so that `make bench` runs every figure
// and a developer can run a few.
func only(b *testing.B, name string) {
	v := os.Getenv(envOnly)
	if v == "" {
		return
	}
	for _, n := range strings.Split(v, ",") {
		if strings.TrimSpace(n) == name {
			return
		}
	}
	b.Skipf("%s=%s leaves out %s", envOnly, v, name)
}

// target is one running broker under test.
type target struct {
	name string
	addr string
	http string // the web UI (gregor only)
	// pid is the broker's process (0 when it runs in this process); its CPU
	// time is sampled around each phase.
	pid int
	// members are a cluster's brokers (addr then lists them all); pid is 0.
	members []*target
	stop    func() error
	// crash kills the broker as kill -9 does (gregor only); the stop
	// after it waits for the exit and reports none.
	crash func()
	// logTail is the end of the broker's log (gregor only), for failures.
	logTail func() string
}

// pids are the broker processes: the broker's own, if it has one, or
// every member's.
func (t *target) pids() []int {
	var out []int
	for _, m := range t.members {
		out = append(out, m.pids()...)
	}
	if t.pid != 0 {
		out = append(out, t.pid)
	}
	return out
}

// startGregor runs the gregor binary file-backed in a temporary
// directory, with extra flags if any.
func startGregor(tb testing.TB, flags ...string) *target {
	return launchGregor(tb, gregorSpec{flags: flags})
}

// gregorSpec is how to run one gregor process; the zero value is a fresh
// data directory in tb.TempDir() and two free loopback ports.
type gregorSpec struct {
	bin             string // the binary; "" for gregorBinary's
	dataDir         string
	kafkaAddr, http string
	flags           []string
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// gregorBinary is GREGOR_BENCH_BIN, or the binary built once per test
// process from ./server/cmd/gregor.
func gregorBinary(tb testing.TB) string {
	if bin := os.Getenv(envBin); bin != "" {
		return bin
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gregor-bench-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "gregor")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/gregor-kafka/gregor/server/cmd/gregor").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building gregor: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}

// launchGregor starts one gregor process as spec says and waits for its
// Kafka port.
//
// Its log (and its data, unless spec names a directory) lives in a
// directory of its own that stop removes once the process has exited,
// and a cleanup registered here stops it: a tb.TempDir would be removed
// by a cleanup that runs before the caller's (cleanups run last in,
// first out, and callers register theirs before starting the target),
// under a broker still running, and take its log with it.
func launchGregor(tb testing.TB, spec gregorSpec) *target {
	bin := spec.bin
	if bin == "" {
		bin = gregorBinary(tb)
	}
	dir, err := os.MkdirTemp("", "gregor-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	if spec.dataDir == "" {
		spec.dataDir = filepath.Join(dir, "data")
	}
	if spec.kafkaAddr == "" {
		addrs := freeAddrs(tb, 2) // picked together, so never the same port
		spec.kafkaAddr, spec.http = addrs[0], addrs[1]
	}
	logPath := filepath.Join(dir, "gregor.log")
	logf, err := os.Create(logPath)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := brokerCommand(bin, append([]string{"serve", "--kafka-addr", spec.kafkaAddr, "--http-addr", spec.http,
		"--data-dir", spec.dataDir}, spec.flags...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting gregor: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); logf.Close() }()
	logTail := func() string {
		raw, _ := os.ReadFile(logPath)
		if len(raw) > 4000 {
			raw = raw[len(raw)-4000:]
		}
		return string(raw)
	}
	// stop may be called again (a benchmark that restarts gregor and
	// fails stops it in its cleanup too): it answers the first result.
	var crashed atomic.Bool
	crash := func() { crashed.Store(true); cmd.Process.Kill() }
	stop := sync.OnceValue(func() error {
		defer os.RemoveAll(dir)
		cmd.Process.Signal(os.Interrupt)
		select {
		case err := <-exited:
			if err != nil && !crashed.Load() {
				return fmt.Errorf("gregor exited with %v; log:\n%s", err, logTail())
			}
			return nil
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("gregor ignored SIGINT for 15s; killed it; log:\n%s", logTail())
		}
	})
	tb.Cleanup(func() { stop() }) // the caller reports its error
	if err := waitForPort(spec.kafkaAddr, exited, 60*time.Second); err != nil {
		cmd.Process.Kill()
		tb.Fatalf("gregor did not come up: %v\nlog:\n%s", err, logTail())
	}
	return &target{name: "gregor", addr: spec.kafkaAddr, http: spec.http, pid: cmd.Process.Pid, stop: stop, crash: crash, logTail: logTail}
}

// startKfakeChild re-execs this test binary as a kfake broker process.
func startKfakeChild(tb testing.TB) *target { return startChild(tb, "kfake", envKfakeChild) }

// startChild re-execs this test binary on the brokers' core with env=1
// (and extra, "KEY=value" each), which TestMain turns into a server
// (kfake, or the floors of floor_test.go) that prints "addr=HOST:PORT"
// and serves until its stdin closes.
func startChild(tb testing.TB, name, env string, extra ...string) *target {
	self, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	cmd := brokerCommand(self, "-test.run=^$")
	cmd.Env = append(append(os.Environ(), env+"=1"), extra...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		tb.Fatalf("starting %s child: %v", name, err)
	}
	addrc := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addrc <- strings.TrimSpace(strings.TrimPrefix(line, "addr="))
		io.Copy(io.Discard, stdout)
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(20 * time.Second):
	}
	if addr == "" {
		cmd.Process.Kill()
		cmd.Wait()
		tb.Fatalf("%s child printed no address; stderr:\n%s", name, stderr.String())
	}
	return &target{
		name: name,
		addr: addr,
		pid:  cmd.Process.Pid,
		stop: func() error {
			stdin.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				return err
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				return <-done
			}
		},
	}
}

// startKfakeInProcess runs kfake inside the test process (the client and
// the broker then share this process's CPU accounting and scheduler).
func startKfakeInProcess(tb testing.TB) *target {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		tb.Fatal(err)
	}
	return &target{name: "kfake-inproc", addr: c.ListenAddrs()[0], stop: func() error { c.Close(); return nil }}
}

// freeAddrs picks n distinct free loopback addresses: each stays bound
// until all are picked.
func freeAddrs(tb testing.TB, n int) []string {
	var out []string
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			tb.Fatal(err)
		}
		defer ln.Close()
		out = append(out, ln.Addr().String())
	}
	return out
}

func waitForPort(addr string, exited <-chan error, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("process exited before listening: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not accepting after %v: %v", addr, limit, err)
		}
		time.Sleep(20 * time.Millisecond) // polling a child process's port; nothing to wait on
	}
}

// phaseResult is one produce or consume run.
type phaseResult struct {
	records int64
	bytes   int64
	elapsed time.Duration
	// brokerCPU is the CPU time the broker processes used during the phase
	// (0 if unknown).
	brokerCPU time.Duration
	// clientBusy is the fraction of the phase the client's core was busy
	// (-1 if unknown; see pinning_test.go).
	clientBusy float64
}

func (r phaseResult) mbps() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.bytes) / 1e6 / r.elapsed.Seconds()
}

func (r phaseResult) recps() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.records) / r.elapsed.Seconds()
}

// cpuPerGB is the broker's CPU seconds per GB moved.
func (r phaseResult) cpuPerGB() float64 {
	if r.bytes == 0 {
		return 0
	}
	return r.brokerCPU.Seconds() / (float64(r.bytes) / 1e9)
}

// add accumulates runs.
func (r *phaseResult) add(o phaseResult) {
	r.records += o.records
	r.bytes += o.bytes
	r.elapsed += o.elapsed
	r.brokerCPU += o.brokerCPU
}

// median returns the run with the median rate (the lower middle one for an
// even count); rs must not be empty.
func median(rs []phaseResult) phaseResult {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b phaseResult) int { return cmp.Compare(a.mbps(), b.mbps()) })
	return s[(len(s)-1)/2]
}

// procCPU reads a process's user+system CPU time from /proc (Linux); 0
// elsewhere or for pid 0.
func procCPU(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields after its ')' are
	// state(3) ... utime(14) stime(15).
	i := bytes.LastIndexByte(raw, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(raw[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	const clkTck = 100 // USER_HZ on every Linux port Go supports
	return time.Duration(ut+st) * time.Second / clkTck
}

// valuePool holds random bytes that record values are cut from, so no two
// neighbouring records are alike and nothing compresses by accident.
var valuePool = func() []byte {
	p := make([]byte, 1<<20+recordSize)
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i+8 <= len(p); i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			p[i+j] = byte(v >> (8 * j))
		}
	}
	return p
}()

func value(i int) []byte {
	off := (i * 4099) % (len(valuePool) - recordSize)
	return valuePool[off : off+recordSize : off+recordSize]
}

// seeds is the client option for a target's address: one broker's, or
// a cluster's as a comma list.
func seeds(addr string) kgo.Opt { return kgo.SeedBrokers(strings.Split(addr, ",")...) }

// createTopic creates the benchmark topic (6 partitions, one replica).
func createTopic(ctx context.Context, addr, topic string) error {
	return makeTopic(ctx, addr, topic, partitions, 1, nil)
}

// makeTopic creates a topic with kadm.
func makeTopic(ctx context.Context, addr, topic string, parts int32, rf int16, configs map[string]*string) error {
	cl, err := kgo.NewClient(seeds(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).CreateTopic(ctx, parts, rf, configs, topic)
	if err != nil {
		return fmt.Errorf("create topic %s: %w", topic, err)
	}
	if resp.Err != nil {
		return fmt.Errorf("create topic %s: %w", topic, resp.Err)
	}
	return nil
}

// newProducer is an idempotent producer (so acks=all) of 1 KiB records
// to topic, connected and with metadata loaded; opts change its defaults.
func newProducer(ctx context.Context, addr, topic string, opts ...kgo.Opt) (*kgo.Client, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{
		seeds(addr),
		kgo.DefaultProduceTopic(topic),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(time.Millisecond),
		kgo.ProducerBatchCompression(kgo.NoCompression()),
	}, opts...)...)
	if err != nil {
		return nil, err
	}
	if err := cl.Ping(ctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("ping: %w", err)
	}
	return cl, nil
}

// produce sends up to n records (stopping early after limit) with one
// producer and waits for every ack; pids are the broker processes whose
// CPU time is counted.
func produce(ctx context.Context, addr, topic string, n int, limit time.Duration, pids []int, opts ...kgo.Opt) (phaseResult, error) {
	return produceParallel(ctx, addr, topic, 1, n, limit, pids, opts...)
}

// produceParallel is produce with k producers side by side, each sending
// n/k records; the clock starts when all are connected.
func produceParallel(ctx context.Context, addr, topic string, k, n int, limit time.Duration, pids []int, opts ...kgo.Opt) (phaseResult, error) {
	cls := make([]*kgo.Client, 0, k)
	defer func() {
		for _, cl := range cls {
			cl.Close()
		}
	}()
	for range k {
		cl, err := newProducer(ctx, addr, topic, opts...)
		if err != nil {
			return phaseResult{}, err
		}
		cls = append(cls, cl)
	}
	var (
		acked atomic.Int64
		wg    sync.WaitGroup
		errs  = make([]error, k)
	)
	m := startMeter(pids...)
	deadline := time.Now().Add(limit)
	for j, cl := range cls {
		wg.Go(func() { errs[j] = sendAll(ctx, cl, j*(n/k), n/k, deadline, &acked) })
	}
	wg.Wait()
	res := phaseResult{records: acked.Load()}
	m.stop(&res)
	res.bytes = res.records * recordSize
	return res, errors.Join(errs...)
}

// sendAll produces records first..first+n-1 (stopping early past
// deadline) and waits for their acks, counting them in acked.
func sendAll(ctx context.Context, cl *kgo.Client, first, n int, deadline time.Time, acked *atomic.Int64) error {
	var (
		firstErr error
		errOnce  sync.Once
	)
	cb := func(r *kgo.Record, err error) {
		if err != nil {
			errOnce.Do(func() { firstErr = err })
			return
		}
		acked.Add(1)
	}
	for i := first; i < first+n; i++ {
		if i%1024 == 0 && time.Now().After(deadline) {
			break
		}
		cl.Produce(ctx, &kgo.Record{Value: value(i)}, cb)
	}
	if err := cl.Flush(ctx); err != nil {
		return fmt.Errorf("flush: %w", err)
	}
	if firstErr != nil {
		return fmt.Errorf("produce: %w", firstErr)
	}
	return nil
}

// consume reads want records from the start of every partition with a fresh
// client and checks them: contiguous offsets from 0 per partition, 1 KiB
// values.
func consume(ctx context.Context, addr, topic string, want int64, limit time.Duration, pids []int) (phaseResult, error) {
	m := startMeter(pids...)
	cl, err := kgo.NewClient(
		seeds(addr),
		kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if err != nil {
		return phaseResult{}, err
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var (
		res  phaseResult
		next [partitions]int64
		bad  error
	)
	for res.records < want && bad == nil {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return res, fmt.Errorf("consumed %d of %d records before the %v limit", res.records, want, limit)
		}
		for _, fe := range fs.Errors() {
			return res, fmt.Errorf("fetch %s[%d]: %w", fe.Topic, fe.Partition, fe.Err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			if bad != nil {
				return
			}
			if r.Partition < 0 || r.Partition >= partitions {
				bad = fmt.Errorf("record from partition %d", r.Partition)
				return
			}
			if r.Offset != next[r.Partition] {
				bad = fmt.Errorf("partition %d: offset %d, want %d", r.Partition, r.Offset, next[r.Partition])
				return
			}
			if len(r.Value) != recordSize {
				bad = fmt.Errorf("partition %d offset %d: value of %d bytes, want %d", r.Partition, r.Offset, len(r.Value), recordSize)
				return
			}
			next[r.Partition]++
			res.records++
			res.bytes += int64(len(r.Value))
		})
	}
	m.stop(&res)
	if bad != nil {
		return res, bad
	}
	if res.records != want {
		return res, fmt.Errorf("consumed %d records, produced %d", res.records, want)
	}
	return res, nil
}

// deleteTopic drops a finished round's topic so that rounds do not pile up
// memory (kfake) or disk (gregor).
func deleteTopic(ctx context.Context, addr, topic string) error {
	cl, err := kgo.NewClient(seeds(addr))
	if err != nil {
		return err
	}
	defer cl.Close()
	resp, err := kadm.NewClient(cl).DeleteTopic(ctx, topic)
	if err == nil {
		err = resp.Err
	}
	if err != nil {
		return fmt.Errorf("delete topic %s: %w", topic, err)
	}
	return nil
}

// runWorkload creates a fresh topic on t, produces into it, consumes it and
// deletes it.
func runWorkload(ctx context.Context, t *target, topic string, s settings) (prod, cons phaseResult, err error) {
	if err := createTopic(ctx, t.addr, topic); err != nil {
		return prod, cons, err
	}
	if prod, err = produce(ctx, t.addr, topic, s.records, s.phase, t.pids()); err != nil {
		return prod, cons, err
	}
	if prod.records == 0 {
		return prod, cons, errors.New("no record was acknowledged")
	}
	if cons, err = consume(ctx, t.addr, topic, prod.records, s.phase, t.pids()); err != nil {
		return prod, cons, err
	}
	return prod, cons, deleteTopic(ctx, t.addr, topic)
}
