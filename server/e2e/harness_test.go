package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Timeouts. They bound waits, sized for a loaded machine (tests run side
// by side, and test-stress keeps both CPUs busy beside them); nothing
// sleeps for them.
const (
	readyTimeout    = 60 * time.Second // process start → Kafka port accepts
	shutdownTimeout = 30 * time.Second // SIGINT → exit
	opTimeout       = 60 * time.Second // one test's client operations
	pollInterval    = 20 * time.Millisecond
)

var (
	// useKfake swaps the broker under test for franz-go's in-process kfake.
	// It exists to debug the tests themselves; CI never sets it.
	useKfake = os.Getenv("GREGOR_E2E_KFAKE") == "1"
	// inCI turns a missing tool from a skip into a failure.
	inCI = os.Getenv("CI") == "true"

	repoRoot  string // the module root, where go.mod is
	gregorBin string // the binary TestMain built
)

func TestMain(m *testing.M) { os.Exit(runMain(m)) }

func runMain(m *testing.M) int {
	root, err := findRepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	repoRoot = root
	if useKfake {
		// The client subcommands (cli_client_test.go) still run the binary.
		fmt.Fprintln(os.Stderr, "e2e: GREGOR_E2E_KFAKE=1: testing franz-go's kfake, NOT the gregor broker")
	}
	dir, err := os.MkdirTemp("", "gregor-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	gregorBin = filepath.Join(dir, "gregor")
	build := exec.Command("go", "build", "-o", gregorBin, "./server/cmd/gregor")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: go build ./server/cmd/gregor: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

func findRepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// ---------------------------------------------------------------------------
// Tools

// requireTool returns the path of an external program, or skips the test
// loudly (on a laptop) or fails it (with CI=true) when it is missing.
func requireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		missingTool(t, fmt.Sprintf("%q is not on PATH", name))
	}
	return p
}

// requireNpmPackage checks that `npm ci` has been run in dir for pkg.
func requireNpmPackage(t testing.TB, dir, pkg string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
		missingTool(t, fmt.Sprintf("npm package %q is not installed in %s (run `npm ci` there)", pkg, dir))
	}
}

func missingTool(t testing.TB, what string) {
	t.Helper()
	if inCI {
		t.Fatalf("CI=true and a required tool is missing: %s; .ci/run should have installed it", what)
	}
	t.Skipf("\n\n!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n"+
		"!!! SKIPPED %s: %s\n"+
		"!!! This test did NOT run. Install the tool (see .ci/run) to run it.\n"+
		"!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n", t.Name(), what)
}

// requireBinary skips a test that needs the real process or Kafka's on-disk
// layout (signals, exit codes, files) when the harness runs on kfake.
func requireBinary(t testing.TB) {
	t.Helper()
	if useKfake {
		t.Skip("needs the real gregor binary; GREGOR_E2E_KFAKE=1 is set")
	}
}

// ---------------------------------------------------------------------------
// The broker under test

// Broker is one broker under test: a gregor process (or, under
// GREGOR_E2E_KFAKE=1, an in-process kfake cluster) on fixed loopback ports
// and a data directory that survive Kill/Restart.
type Broker struct {
	t        testing.TB
	Addr     string // Kafka listener, host:port
	HTTPAddr string
	DataDir  string
	NodeID   int32 // what Metadata should advertise
	configs  [][2]string
	extra    []string
	// listeners replaces --kafka-addr with --listeners (WithListeners);
	// listenersFor computes it from the broker (WithListenersFor).
	listeners    string
	listenersFor func(*Broker) string
	// Env is added to the environment of the next runs (e.g. the test-only
	// GREGOR_TEST_FAULTS); a test may clear it before a Restart.
	Env []string

	log *lockedBuffer // stdout+stderr of every run, in order

	mu   sync.Mutex
	proc *process
	kf   *kfake.Cluster
	runs int

	wrap []string // a command that runs the binary (WithWrapper)
}

type process struct {
	cmd      *exec.Cmd
	logStart int           // offset in Broker.log where this run began
	done     chan struct{} // closed when the process has exited
	state    *os.ProcessState
	waitErr  error
	// signalled is set when the test itself sent a signal (Kill, Signal),
	// so an exit is expected.
	signalled bool
}

// BrokerOpt configures startBroker.
type BrokerOpt func(*Broker)

// WithDataDir runs the broker on dir instead of a fresh t.TempDir().
func WithDataDir(dir string) BrokerOpt { return func(b *Broker) { b.DataDir = dir } }

// WithConfig passes a Kafka broker config as --name value.
func WithConfig(name, value string) BrokerOpt {
	return func(b *Broker) { b.configs = append(b.configs, [2]string{name, value}) }
}

// WithWrapper runs the binary through a command that execs it, such as
// `ip netns exec NAME`, so that signals still reach gregor itself.
func WithWrapper(cmd ...string) BrokerOpt {
	return func(b *Broker) { b.wrap = cmd }
}

// WithAddrs runs the broker on the given Kafka and HTTP listener addresses
// instead of ones reserved when it starts.
func WithAddrs(kafka, http string) BrokerOpt {
	return func(b *Broker) { b.Addr, b.HTTPAddr = kafka, http }
}

// WithListeners runs the broker with Kafka's listeners setting instead of
// --kafka-addr; addr is the listener whose port the harness waits for.
func WithListeners(listeners, addr string) BrokerOpt {
	return func(b *Broker) { b.listeners, b.Addr = listeners, addr }
}

// WithListenersFor is WithListeners for the brokers of a cluster: f makes
// each broker's listeners from it (its Addr among them, the port the
// harness waits for).
func WithListenersFor(f func(b *Broker) string) BrokerOpt {
	return func(b *Broker) { b.listenersFor = f }
}

// WithEnv adds KEY=value pairs to the broker's environment.
func WithEnv(kv ...string) BrokerOpt { return func(b *Broker) { b.Env = append(b.Env, kv...) } }

// WithArgs appends raw command-line arguments.
func WithArgs(args ...string) BrokerOpt {
	return func(b *Broker) { b.extra = append(b.extra, args...) }
}

// startBroker starts a broker on reserved loopback ports (reserveAddrs), waits until its Kafka
// port accepts connections, and stops it (SIGINT, then SIGKILL) when the
// test ends. On failure the test log gets everything the broker printed.
func startBroker(t testing.TB, opts ...BrokerOpt) *Broker {
	t.Helper()
	b := &Broker{t: t, NodeID: 1, log: new(lockedBuffer)}
	if useKfake {
		b.NodeID = 0
	}
	for _, o := range opts {
		o(b)
	}
	if b.DataDir == "" {
		b.DataDir = t.TempDir()
	}
	if b.Addr == "" || b.HTTPAddr == "" {
		addrs := reserveAddrs(t, 2)
		if b.Addr == "" {
			b.Addr = addrs[0]
		}
		if b.HTTPAddr == "" {
			b.HTTPAddr = addrs[1]
		}
	}
	// Cleanups run last-in first-out: stop first, then dump the log, so the
	// dump includes what the broker said while shutting down.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("---- broker output (%s, data dir %s) ----\n%s---- end of broker output ----",
				b.Addr, b.DataDir, b.log.String())
		}
	})
	t.Cleanup(func() {
		b.mu.Lock()
		p := b.proc
		b.mu.Unlock()
		if p == nil || p.done == nil { // kfake, or never started
			b.Stop()
			return
		}
		select {
		case <-p.done:
			if !p.signalled {
				t.Errorf("the broker exited during the test without being asked to: %v", p.waitErr)
			}
			return
		default:
		}
		if code, err := b.Stop(); err != nil {
			t.Errorf("stopping the broker at the end of the test: %v", err)
		} else if code != 0 {
			t.Errorf("the broker exited with code %d after SIGINT, want 0", code)
		}
	})
	if err := b.start(); err != nil {
		t.Fatalf("starting broker: %v", err)
	}
	return b
}

// Args is the command line of the broker (without the binary).
func (b *Broker) Args() []string {
	args := []string{"serve", "--kafka-addr", b.Addr, "--http-addr", b.HTTPAddr, "--data-dir", b.DataDir}
	listeners := b.listeners
	if b.listenersFor != nil {
		listeners = b.listenersFor(b)
	}
	if listeners != "" {
		args = append([]string{"serve", "--listeners", listeners}, args[3:]...)
	}
	for _, kv := range b.configs {
		args = append(args, "--"+kv[0], kv[1])
	}
	return append(args, b.extra...)
}

func (b *Broker) start() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.runs++
	if useKfake {
		return b.startKfake()
	}
	fmt.Fprintf(b.log, "==== run %d: gregor %s\n", b.runs, strings.Join(b.Args(), " "))
	p := &process{logStart: b.log.Len(), done: make(chan struct{})}
	argv := append(append(append([]string{}, b.wrap...), gregorBin), b.Args()...)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.Stdout = b.log
	p.cmd.Stderr = b.log
	if len(b.Env) > 0 {
		p.cmd.Env = append(os.Environ(), b.Env...)
	}
	if err := p.cmd.Start(); err != nil {
		return err
	}
	go func() {
		p.waitErr = p.cmd.Wait()
		p.state = p.cmd.ProcessState
		close(p.done)
	}()
	b.proc = p
	deadline := time.Now().Add(readyTimeout)
	for {
		c, err := net.DialTimeout("tcp", b.Addr, 250*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kafka port %s did not accept within %v: %v", b.Addr, readyTimeout, err)
		}
		select {
		case <-p.done:
			return fmt.Errorf("gregor exited before its kafka port accepted: %v", p.waitErr)
		case <-time.After(pollInterval):
		}
	}
}

func (b *Broker) startKfake() error {
	port, _ := strconv.Atoi(b.Addr[strings.LastIndexByte(b.Addr, ':')+1:])
	opts := []kfake.Opt{kfake.Ports(port), kfake.DataDir(b.DataDir), kfake.DefaultNumPartitions(1)}
	bcfg := map[string]string{}
	for _, kv := range b.configs {
		switch kv[0] {
		case "num.partitions":
			n, _ := strconv.Atoi(kv[1])
			opts = append(opts, kfake.DefaultNumPartitions(n))
		case "auto.create.topics.enable":
			if kv[1] == "true" {
				opts = append(opts, kfake.AllowAutoTopicCreation())
			}
		default:
			bcfg[kv[0]] = kv[1]
		}
	}
	opts = append(opts, kfake.BrokerConfigs(bcfg))
	fmt.Fprintf(b.log, "==== run %d: kfake on %s\n", b.runs, b.Addr)
	kf, err := kfake.NewCluster(opts...)
	if err != nil {
		return err
	}
	b.kf = kf
	b.proc = &process{logStart: b.log.Len()}
	return nil
}

// Output is everything the broker printed in its current (or last) run.
func (b *Broker) Output() string {
	b.mu.Lock()
	start := 0
	if b.proc != nil {
		start = b.proc.logStart
	}
	b.mu.Unlock()
	return b.log.String()[start:]
}

// Kill stops the broker the hard way (SIGKILL) and waits for it to be gone.
func (b *Broker) Kill() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if useKfake {
		if b.kf != nil {
			b.kf.Close()
			b.kf = nil
		}
		return
	}
	p := b.proc
	if p == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	p.signalled = true
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Signal sends sig to the broker process and marks its exit as expected.
func (b *Broker) Signal(sig os.Signal) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.proc == nil || b.proc.cmd == nil {
		return errors.New("no broker process")
	}
	b.proc.signalled = true
	return b.proc.cmd.Process.Signal(sig)
}

// WaitExit waits up to timeout for the broker to exit on its own (a fatal
// fault), marks that exit as expected and returns its exit code.
func (b *Broker) WaitExit(timeout time.Duration) (int, error) {
	b.mu.Lock()
	p := b.proc
	if p != nil {
		p.signalled = true
	}
	b.mu.Unlock()
	if p == nil || p.done == nil {
		return 0, errors.New("no broker process")
	}
	select {
	case <-p.done:
		return p.state.ExitCode(), nil
	case <-time.After(timeout):
		return 0, fmt.Errorf("still running after %v", timeout)
	}
}

// Restart starts the broker again on the same ports and data directory. The
// previous run must have ended (Kill or Stop).
func (b *Broker) Restart() {
	b.t.Helper()
	if b.Running() {
		b.t.Fatalf("Restart: broker is still running")
	}
	if err := b.start(); err != nil {
		b.t.Fatalf("restarting broker: %v", err)
	}
}

// KillAndRestart is a crash and a restart on the same data directory and
// ports.
func (b *Broker) KillAndRestart() {
	b.t.Helper()
	b.Kill()
	b.Restart()
}

// Running reports whether the current process is alive.
func (b *Broker) Running() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if useKfake {
		return b.kf != nil
	}
	if b.proc == nil {
		return false
	}
	select {
	case <-b.proc.done:
		return false
	default:
		return true
	}
}

// Stop sends SIGINT and waits for the exit, escalating to SIGKILL after
// shutdownTimeout (and then reporting an error). It returns the exit code.
func (b *Broker) Stop() (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if useKfake {
		if b.kf != nil {
			b.kf.Close()
			b.kf = nil
		}
		return 0, nil
	}
	p := b.proc
	if p == nil {
		return 0, nil
	}
	select {
	case <-p.done:
		return p.state.ExitCode(), nil
	default:
	}
	p.signalled = true
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
		return p.state.ExitCode(), nil
	case <-time.After(shutdownTimeout):
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		<-p.done
		return -1, fmt.Errorf("no exit within %v of SIGINT; killed", shutdownTimeout)
	}
}

// Client returns a franz-go client seeded with this broker, closed at the
// end of the test.
func (b *Broker) Client(t testing.TB, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	all := append([]kgo.Opt{
		kgo.SeedBrokers(b.Addr),
		kgo.RetryTimeout(20 * time.Second),
	}, opts...)
	cl, err := kgo.NewClient(all...)
	if err != nil {
		t.Fatalf("kgo.NewClient: %v", err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Admin returns a kadm client on a fresh franz-go client.
func (b *Broker) Admin(t testing.TB) *kadm.Client {
	t.Helper()
	return kadm.NewClient(b.Client(t))
}

// ---------------------------------------------------------------------------
// Small helpers

// reserveAddrs reserves n distinct loopback addresses for the rest of the
// test: each is a socket bound to its port (SO_REUSEADDR) that never
// listens. A broker can still bind and listen there (its listener sets
// SO_REUSEADDR too, and the reservation is not listening), while the
// kernel hands the port to no one else, neither to a bind to port 0 nor as
// the local port of an outgoing connection. So the port is the test's from
// the first start to the last restart, with tests running side by side,
// and a connection to it while the broker is down is refused at once, as
// with no reservation at all. (These are Linux's rules for SO_REUSEADDR,
// which the end-to-end tests assume throughout.)
func reserveAddrs(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	for range n {
		fd, port, err := reservePort()
		if err != nil {
			t.Fatalf("reserving a loopback port: %v", err)
		}
		// Released after the brokers stop: cleanups run last-in first-out,
		// and the brokers using the port register theirs later.
		t.Cleanup(func() { syscall.Close(fd) })
		out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	}
	return out
}

// reservePort binds a socket to a free loopback port, without listening.
func reservePort() (fd, port int, err error) {
	syscall.ForkLock.RLock() // not inherited by a broker started meanwhile
	fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return 0, 0, err
	}
	if err = syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err == nil {
		err = syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}})
	}
	var sa syscall.Sockaddr
	if err == nil {
		sa, err = syscall.Getsockname(fd)
	}
	if err != nil {
		syscall.Close(fd)
		return 0, 0, err
	}
	return fd, sa.(*syscall.SockaddrInet4).Port, nil
}

// testCtx is a context that ends after d or when the test ends.
func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// topicName makes a topic name unique to this test and this run.
func topicName(t testing.TB, suffix string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		}
		return '_'
	}, t.Name())
	if len(name) > 150 {
		name = name[:150]
	}
	if suffix != "" {
		name += "-" + suffix
	}
	return fmt.Sprintf("%s-%06d", name, rand.IntN(1000000))
}

// eventually polls cond until it returns nil or timeout passes, and then
// fails the test with the last error.
func eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still failing after %v: %v", what, timeout, err)
		}
		time.Sleep(pollInterval) // a poll interval, not a synchronisation
	}
}

// lockedBuffer is an io.Writer safe for the process's stdout and stderr
// copiers and the test's readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Len()
}
