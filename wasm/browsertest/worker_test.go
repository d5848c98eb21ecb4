package browsertest

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The Worker (wasm/worker) in Cloudflare's local runtime, as `make
// worker-dev` runs it: wrangler dev, with the committed wrangler.jsonc, in
// front of the static site. It runs in a network namespace that holds
// only loopback, which proves it needs nothing beyond it (no login, no
// telemetry, no remote binding); the test reaches it through a proxy that
// dials into that namespace.

// workerDir is wasm/worker, from this package's directory.
const workerDir = "../worker"

var workerOnce struct {
	sync.Once
	base string
	err  error
	log  *bytes.Buffer
}

// workerBase starts the Worker once for the package and returns its
// address, as the browser reaches it. It needs Node with wasm/worker's
// npm packages (npm ci there, as .ci/run does), root for the network
// namespace and util-linux's unshare: without them it skips loudly, and
// fails with CI=true.
func workerBase(t *testing.T) string {
	t.Helper()
	wrangler := filepath.Join(workerDir, "node_modules", "wrangler", "bin", "wrangler.js")
	if _, err := os.Stat(wrangler); err != nil {
		missing(t, "wrangler (cd wasm/worker && npm ci)")
	}
	for _, tool := range []string{"node", "unshare", "ip"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool)
		}
	}
	if os.Geteuid() != 0 {
		missing(t, "root privileges (to run the Worker in a network namespace of its own)")
	}
	serve(t, true) // builds the static site the Worker serves
	workerOnce.Do(func() {
		workerOnce.log = &bytes.Buffer{}
		workerOnce.base, workerOnce.err = startWorker(wrangler, workerOnce.log)
	})
	if workerOnce.err != nil {
		t.Fatalf("the Worker: %v\nwrangler said:\n%s", workerOnce.err, workerSaid())
	}
	t.Cleanup(func() {
		if t.Failed() { // what the Worker said, for a failure in front of it
			t.Logf("wrangler said, last:\n%s", workerSaid())
		}
	})
	return workerOnce.base
}

// workerSaid is the end of wrangler's output.
func workerSaid() string {
	logMu.Lock()
	defer logMu.Unlock()
	return tail(workerOnce.log.String(), 40)
}

// missing skips t for want of what, loudly, or fails it in CI.
func missing(t *testing.T, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing; CI=true, so this fails instead of skipping", what)
	}
	t.Skipf("SKIPPING WORKER TESTS: %s is missing", what)
}

// workerPort is make worker-dev's: the namespace is the test's own, so
// it is free.
const workerPort = "8787"

// startWorker builds the Worker, lays it out beside the site as
// wrangler.jsonc expects (build/ beside it, the site in ../../bin/site),
// starts wrangler dev in a namespace of its own and returns the proxy's
// address once the Worker answers.
func startWorker(wrangler string, log *bytes.Buffer) (string, error) {
	root, err := os.MkdirTemp("", "gregor-worker-")
	if err != nil {
		return "", err
	}
	wdir := filepath.Join(root, "wasm", "worker")
	build := filepath.Join(wdir, "build")
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		return "", err
	}
	if err := os.Symlink(siteDir, filepath.Join(root, "bin", "site")); err != nil {
		return "", err
	}
	start := time.Now()
	gen := exec.Command("go", "run", "github.com/syumai/workers/cmd/workers-assets-gen", "-mode=go", "-o", build)
	if out, err := gen.CombinedOutput(); err != nil {
		return "", fmt.Errorf("workers-assets-gen: %v\n%s", err, out)
	}
	app := filepath.Join(build, "app.wasm")
	gobuild := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", app, "github.com/gregor-kafka/gregor/wasm/worker")
	gobuild.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	if out, err := gobuild.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the Worker: %v\n%s", err, out)
	}
	config, err := os.ReadFile(filepath.Join(workerDir, "wrangler.jsonc"))
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(wdir, "wrangler.jsonc"), config, 0o644); err != nil {
		return "", err
	}
	if raw, err := os.ReadFile(app); err == nil {
		fmt.Printf("browsertest: the Worker is %d bytes (%d with gzip -9), built in %.1fs\n", len(raw), gzip9(raw).Len(), time.Since(start).Seconds())
	}
	absWrangler, _ := filepath.Abs(wrangler)
	// Loopback is down in a new namespace: up, then wrangler.
	cmd := exec.Command("unshare", "--net", "sh", "-c", `ip link set lo up && exec node "$0" dev --local --ip 127.0.0.1 --port `+workerPort, absWrangler)
	cmd.Dir = wdir
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "XDG_CONFIG_HOME="+filepath.Join(root, "config"), "NO_COLOR=1")
	cmd.Stdout, cmd.Stderr = lockedWriter(log), lockedWriter(log)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stopWorker = func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		os.RemoveAll(root)
	}
	ns, err := netnsOf(cmd.Process.Pid)
	if err != nil {
		return "", err
	}
	px := &nsProxy{ns: ns, target: "127.0.0.1:" + workerPort, log: lockedWriter(log)}
	base, err := px.listen()
	if err != nil {
		return "", err
	}
	started := time.Now()
	deadline := started.Add(3 * time.Minute) // wrangler reads the 2,400 files of the site first
	for {
		res, err := http.Get(base + "/")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
			err = fmt.Errorf("GET / answered %s", res.Status)
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("not serving %v after it started: %v", time.Since(started).Round(time.Second), err)
		}
		select {
		case <-exited:
			return "", fmt.Errorf("wrangler exited: %v", cmd.ProcessState)
		case <-time.After(250 * time.Millisecond):
		}
	}
	// The first request to the Worker itself (GET / is the site's): the
	// runtime compiles the Go module for it.
	first := time.Now()
	res, err := http.Get(base + "/s/AAAAAAAAAAAAAAAAAAAAAA")
	if err != nil {
		return "", err
	}
	res.Body.Close()
	fmt.Printf("browsertest: the Worker serves after %.1fs, in a namespace with only loopback; its first request took %v (%s)\n",
		first.Sub(started).Seconds(), time.Since(first).Round(time.Millisecond), res.Status)
	return base, nil
}

// netnsOf opens the network namespace of unshare's process once it has
// one of its own (unshare makes it after it starts, then execs sh, which
// execs node: the process keeps its pid and its namespace).
func netnsOf(pid int) (*os.File, error) {
	path := fmt.Sprintf("/proc/%d/ns/net", pid)
	home, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		ns, err := os.Readlink(path)
		if err != nil {
			return nil, fmt.Errorf("unshare's namespace: %w", err)
		}
		if ns != home {
			return os.Open(path)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("unshare (pid %d) is still in this process's network namespace (%s) after 30s", pid, ns)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopWorker stops wrangler and its runtime (TestMain calls it).
var stopWorker = func() {}

// nsProxy accepts on the host's loopback and dials target inside ns; it
// writes why a dial failed to log.
type nsProxy struct {
	ns     *os.File
	target string
	log    io.Writer
}

func (p *nsProxy) listen() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.pipe(c)
		}
	}()
	return "http://" + ln.Addr().String(), nil
}

func (p *nsProxy) pipe(c net.Conn) {
	defer c.Close()
	up, err := p.dial()
	if err != nil {
		fmt.Fprintf(p.log, "browsertest proxy: dialing %s in the namespace: %v\n", p.target, err)
		return
	}
	defer up.Close()
	go func() {
		io.Copy(up, c)
		up.(*net.TCPConn).CloseWrite()
	}()
	io.Copy(c, up)
}

// dial opens a connection from inside the namespace: the socket is made
// on a thread moved into it, and stays there once the thread moves back.
func (p *nsProxy) dial() (net.Conn, error) {
	runtime.LockOSThread()
	home, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	defer home.Close()
	if err := unix.Setns(int(p.ns.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return nil, err
	}
	c, dialErr := net.DialTimeout("tcp", p.target, 10*time.Second)
	if err := unix.Setns(int(home.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread is in the wrong namespace: keep it locked, and the
		// runtime ends it with this goroutine.
		if c != nil {
			c.Close()
		}
		return nil, err
	}
	runtime.UnlockOSThread()
	return c, dialErr
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > lines {
		l = l[len(l)-lines:]
	}
	return strings.Join(l, "\n")
}

type syncWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

var logMu sync.Mutex

func lockedWriter(w io.Writer) io.Writer { return syncWriter{&logMu, w} }

func (s syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// TestWorkerLinksNoEngine: the Worker stays small, its CPU per request a
// KV call's: it links neither the engine (core/) nor the lessons' player
// (lessons/play), so it can never replay a lesson.
func TestWorkerLinksNoEngine(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-deps", "github.com/gregor-kafka/gregor/wasm/worker")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !slices.Contains(deps, "github.com/syumai/workers") {
		t.Fatalf("go list -deps of the Worker: %q", deps)
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "github.com/gregor-kafka/gregor/core") || d == "github.com/gregor-kafka/gregor/lessons/play" {
			t.Errorf("the Worker links %s", d)
		}
	}
}
