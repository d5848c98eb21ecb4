package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Pinning: the benchmark's clients run on one core and every broker on
// another, so that a broker never gets the client's CPU and the client's
// own load can be read off its core. The test process pins all its
// threads to core 0 with `taskset -a -p -c 0` (threads made later inherit
// it from their creator) and runs with GOMAXPROCS 1; each broker process
// is started as `taskset -c 1 ...` (kfake's child too: it would inherit
// core 0 otherwise). Without taskset or a second core (or off Linux)
// nothing is pinned, and the benchmarks say so loudly.
const (
	clientCore = 0
	brokerCore = 1
)

// placement is the outcome of pinning, decided once per test process.
type placement struct {
	pinned bool
	why    string // why not pinned
}

var (
	pinOnce sync.Once
	placed  placement
)

// pinClient pins this process to the client's core, once, reporting
// what it did on stdout, and keeps GOMAXPROCS at 1 while pinned: the
// testing package sets GOMAXPROCS to its -cpu value (2 here) before each
// benchmark, and two Ps on one core take turns in the kernel's time
// slices, which put 3-4 ms into the latency benchmark's p99 whenever
// another benchmark ran before it. Every benchmark calls this at its
// start (loadSettings).
func pinClient() placement {
	pinOnce.Do(func() {
		placed = pinSelf()
		if placed.pinned {
			fmt.Printf("pinning: clients (this process, GOMAXPROCS 1) on core %d, brokers on core %d (taskset)\n", clientCore, brokerCore)
			return
		}
		fmt.Printf("\n!!! pinning: NOT PINNED (%s): clients and brokers share every core; the client-core figures are the whole machine's !!!\n\n", placed.why)
	})
	if placed.pinned {
		runtime.GOMAXPROCS(1)
	}
	return placed
}

func pinSelf() placement {
	if runtime.GOOS != "linux" {
		return placement{why: "not Linux"}
	}
	if runtime.NumCPU() < 2 {
		return placement{why: fmt.Sprintf("only %d core usable", runtime.NumCPU())}
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return placement{why: "no taskset on PATH (util-linux)"}
	}
	out, err := exec.Command("taskset", "-a", "-p", "-c", strconv.Itoa(clientCore), strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		return placement{why: fmt.Sprintf("taskset -a -p: %v: %s", err, strings.TrimSpace(string(out)))}
	}
	return placement{pinned: true}
}

// brokerCommand is the command that runs a broker process: on the
// brokers' core when pinned.
func brokerCommand(bin string, args ...string) *exec.Cmd {
	if !pinClient().pinned {
		return exec.Command(bin, args...)
	}
	return exec.Command("taskset", append([]string{"-c", strconv.Itoa(brokerCore), bin}, args...)...)
}

// coreTicks is one sample of the client's core from /proc/stat: ticks
// spent busy and in all (the "cpu" line of every core when unpinned).
type coreTicks struct{ busy, total int64 }

func sampleClientCore() coreTicks {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return coreTicks{}
	}
	name := "cpu"
	if placed.pinned {
		name += strconv.Itoa(clientCore)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[0] != name {
			continue
		}
		var t coreTicks
		for i, v := range f[1:] {
			n, _ := strconv.ParseInt(v, 10, 64)
			t.total += n
			if i != 3 && i != 4 { // idle, iowait
				t.busy += n
			}
		}
		return t
	}
	return coreTicks{}
}

// busySince is the fraction of the ticks since t0 the core was busy (-1
// if unknown).
func (t0 coreTicks) busySince() float64 {
	t := sampleClientCore()
	if t.total <= t0.total {
		return -1
	}
	return float64(t.busy-t0.busy) / float64(t.total-t0.total)
}

// clientBound is the busy fraction past which a ratio measures the client
// rather than the brokers.
const clientBound = 0.90

// meter samples, around one phase, the wall clock, the brokers' CPU time
// and the client's core.
type meter struct {
	pids  []int
	cpu0  time.Duration
	core0 coreTicks
	start time.Time
}

func startMeter(pids ...int) meter {
	m := meter{pids: pids, core0: sampleClientCore()}
	for _, p := range pids {
		m.cpu0 += procCPU(p)
	}
	m.start = time.Now()
	return m
}

// stop fills in a phase's elapsed time, broker CPU and client core.
func (m meter) stop(r *phaseResult) {
	r.elapsed = time.Since(m.start)
	var cpu time.Duration
	for _, p := range m.pids {
		cpu += procCPU(p)
	}
	r.brokerCPU = cpu - m.cpu0
	r.clientBusy = m.core0.busySince()
}
