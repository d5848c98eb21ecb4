package sim

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/store"
	"github.com/gregor-kafka/gregor/core/view"
)

// Node is one simulated broker.
type Node struct {
	ID       int32
	Name     string
	Store    *store.Mem
	Broker   *broker.Broker
	Quorum   *quorumNode // the metadata quorum member (clustered worlds)
	Up       bool
	settings map[string]string
	// stopping: a controlled shutdown is under way (stop command); the
	// node stops once its broker may (stopWhenReady).
	stopping bool
	// stopped: the node is down because a controlled shutdown ended it,
	// not because it crashed.
	stopped bool
}

// World is the whole simulation.
type World struct {
	seed    uint64
	rng     *rand.Rand
	now     int64
	step    int
	nodes   []*Node
	clients map[string]client
	order   []string // client names in creation order
	net     network
	cl      *simCluster // nil unless the world is a cluster (cluster.go)
	events  []view.Event
	out     *strings.Builder
	// groupHistory is what each generation of each group was assigned
	// (group_views.go), for views that count moved partitions.
	groupHistory map[string]map[int32]*generationRecord
	lookup       *lookupRecord // the last lookup, for the view (view_lookup.go)
	limits       Limits        // limits.go
	work         int64
}

// New returns an empty world; the seed drives every random choice.
func New(seed uint64) *World {
	w := &World{seed: seed, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: view.StartTime, clients: map[string]client{}}
	w.net.auto = true
	return w
}

// Seed is the world's seed.
func (w *World) Seed() uint64 { return w.seed }

// Now is the virtual time in ms.
func (w *World) Now() int64 { return w.now }

// Events lists everything that happened so far.
func (w *World) Events() []view.Event { return w.events }

// Nodes lists the brokers.
func (w *World) Nodes() []*Node { return w.nodes }

// Exec runs one command and returns the lines it printed.
func (w *World) Exec(line string) (string, error) {
	var sb strings.Builder
	w.out = &sb
	defer func() { w.out = nil; w.step++ }()
	cmd, err := parseCommand(line)
	if err != nil {
		return "", err
	}
	if cmd.name == "" {
		return "", nil
	}
	h, ok := commands[cmd.name]
	if !ok {
		return "", unknownCommand(cmd.name)
	}
	if err := w.overWork(); err != nil {
		return "", err
	}
	if err := h(w, cmd); err != nil {
		return sb.String(), err
	}
	w.settle()
	return sb.String(), w.overWork()
}

// emit records an event and prints its line.
func (w *World) emit(e view.Event) {
	e.Step, e.Time = w.step, w.now
	w.events = append(w.events, e)
	if w.out != nil && e.Text != "" {
		w.out.WriteString(e.Text)
		w.out.WriteByte('\n')
	}
}

// notef prints a line attributed to an actor.
func (w *World) notef(who, kind, format string, args ...any) {
	w.emit(view.Event{Kind: kind, From: who, Text: fmt.Sprintf("%-13s%s", who, fmt.Sprintf(format, args...))})
}

func (w *World) node(name string) (*Node, error) {
	for _, n := range w.nodes {
		if n.Name == name {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no broker %q", name)
}

// addNode creates and starts a broker.
func (w *World) addNode(settings map[string]string) (*Node, error) {
	n := &Node{ID: int32(len(w.nodes)), Name: fmt.Sprintf("b%d", len(w.nodes)), Store: store.NewMem(), settings: settings}
	w.nodes = append(w.nodes, n)
	return n, w.start(n)
}

// start opens a node's broker on its storage, as a process start would.
func (w *World) start(n *Node) error {
	s := config.NewBroker()
	keys := make([]string, 0, len(n.settings))
	for k := range n.settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := s.SetStatic(k, n.settings[k]); err != nil {
			return err
		}
	}
	cfg := broker.Config{
		NodeID: n.ID, Host: n.Name, Port: 9092, ClusterID: "gregor-sim", Settings: s,
		Rand: rand.New(rand.NewPCG(w.rng.Uint64(), w.rng.Uint64())),
		Logf: func(format string, args ...any) { w.notef(n.Name, "state", format, args...) },
	}
	if w.cl != nil {
		return w.startClustered(n, cfg)
	}
	b, err := broker.New(cfg, n.Store, w.now)
	if err != nil {
		return err
	}
	n.Broker, n.Up = b, true
	w.carryOut(n)
	return nil
}

// maxAdvanceSteps bounds the timer events one advance may fire, so that a
// command like `advance 1000h` against millisecond timers ends with an
// error instead of running for hours (in the browser, on the server's
// prerender).
const maxAdvanceSteps = 100000

// advance moves the virtual clock, firing broker ticks, client timeouts
// and delayed messages in time order.
func (w *World) advance(ms int64) error {
	end := w.now + ms
	if err := w.checkTime(end); err != nil {
		return err
	}
	for steps := 0; w.now < end; steps++ {
		if err := w.spend(1); err != nil {
			return err
		}
		if steps == maxAdvanceSteps {
			return fmt.Errorf("advance: stopped at %dms, %d timer events in (advance in smaller steps, or make timers less frequent)", w.now-view.StartTime, maxAdvanceSteps)
		}
		next := end
		if at, ok := w.net.nextDue(w.now); ok && at < next {
			next = at
		}
		for _, n := range w.nodes {
			if at, ok := n.Broker.NextDeadline(); ok && n.Up && at > w.now && at < next {
				next = at
			}
		}
		for _, name := range w.order {
			if at, ok := w.clients[name].deadline(); ok && at > w.now && at < next {
				next = at
			}
		}
		if w.cl != nil && w.cl.nextTick > w.now && w.cl.nextTick < next {
			next = w.cl.nextTick
		}
		w.now = next
		w.tickCluster()
		for _, n := range w.nodes {
			if n.Up {
				n.Broker.Tick(w.now)
				w.commit(n)
			}
		}
		for _, name := range w.order {
			w.clients[name].tick(w)
		}
		w.settle()
	}
	return nil
}

// commit ends a call into n's broker: it syncs what the call wrote, then
// carries out what the call and the sync produced.
func (w *World) commit(n *Node) {
	if err := n.Broker.Commit(); err != nil {
		w.notef(n.Name, "error", "sync failed: %v", err)
	}
	w.carryOut(n)
}

// carryOut puts what n's broker produced on the network (Broker.Ready),
// in the order it was produced. Nothing here calls the broker back, so
// one Ready holds it all.
func (w *World) carryOut(n *Node) {
	for _, e := range n.Broker.Ready().Effects {
		if e.Send.Req != nil {
			w.brokerSend(n, e.Send)
		} else {
			w.fromBroker(n, e.Response)
		}
	}
}

// bootstrap is the broker a client asks for metadata: its own broker if
// that is up, else the first one that is (a client's bootstrap list).
func (w *World) bootstrap(pref string) string {
	if n, err := w.node(pref); err == nil && n.Up {
		return pref
	}
	for _, n := range w.nodes {
		if n.Up {
			return n.Name
		}
	}
	return pref
}

// brokerConnBase numbers the connections brokers open to each other.
const brokerConnBase = 1 << 32
