package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/group/assign"
)

// TestGroupRandom drives group members through random joins, leaves,
// kills, commits, lost, duplicated and delayed messages, and broker
// crashes and restarts, over many seeds. Then the network goes quiet and
// time passes beyond every timeout, and the group must have settled:
//
//   - every live member is stable in the same generation, the
//     coordinator's, and the coordinator's group is Stable;
//   - every partition of the topics the live members subscribe to has
//     exactly one owner among them, one that subscribes to its topic.
//
// On one broker the disk also flips bytes of __consumer_offsets and tears
// writes at crashes. GROUPSIM_SEED=N replays one seed with its trace,
// GROUPSIM_SEEDS=N runs seeds 1..N.
func TestGroupRandom(t *testing.T) { runGroupSims(t, "GROUPSIM", 80, oneBroker) }

// runGroupSims runs the seeds simSeeds gives; at least half of the runs
// must end with live members to check.
func runGroupSims(t *testing.T, env string, n int, shape groupShape) {
	seeds, trace := simSeeds(env, n)
	settled := 0
	for _, seed := range seeds {
		if runGroupSim(t, seed, trace, shape) {
			settled++
		}
	}
	t.Logf("%d of %d runs ended with live members", settled, len(seeds))
	if !trace && settled < len(seeds)/2 {
		t.Fatalf("only %d of %d runs ended with live members: too tame", settled, len(seeds))
	}
}

// groupShape is the world a group simulation runs in.
type groupShape struct {
	// brokers is the command that starts the brokers, given the
	// settings; topics get " rf=3" in a cluster.
	brokers func(settings string) string
	rf      string
	// crash crashes a broker, lets time pass and restarts it.
	crash func(w *World, rng *rand.Rand, exec func(string))
	// coordinator is the node whose coordinator holds group g.
	coordinator func(w *World) *Node
	// after, if set, sees the world at the end of every run.
	after func(w *World)
}

var oneBroker = groupShape{
	brokers: func(settings string) string { return "broker" + settings },
	crash: func(w *World, rng *rand.Rand, exec func(string)) {
		// The disk misbehaves before some crashes: a byte of the
		// coordinator's segment files flips, or the power loss tears
		// the unsynced writes. The coordinator reloads what passes its
		// checks; the group must settle all the same.
		switch rng.IntN(4) {
		case 0:
			exec("disk b0 flip " + segmentFiles(w, "__consumer_offsets"))
		case 1:
			exec("disk b0 tear")
		}
		exec("crash b0")
		exec(fmt.Sprintf("advance %dms", rng.IntN(5000)))
		exec("restart b0")
	},
	coordinator: func(w *World) *Node { return w.nodes[0] },
}

// runGroupSim reports whether the run ended with live members to check.
func runGroupSim(t *testing.T, seed uint64, trace bool, shape groupShape) bool {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 11))
	w := New(seed)
	var log strings.Builder
	exec := func(cmd string) {
		out, err := w.Exec(cmd)
		fmt.Fprintf(&log, "> %s\n%s", cmd, out)
		if err != nil {
			fmt.Fprintf(&log, "error: %v\n", err)
		}
	}
	assignor := assign.Names()[rng.IntN(len(assign.Names()))]
	flush := ""
	if rng.IntN(2) == 0 {
		flush = " log.flush.interval.messages=1"
	}
	exec(shape.brokers(" group.initial.rebalance.delay.ms=" + strconv.Itoa(rng.IntN(2)*3000) + flush))
	exec("topic t partitions=3" + shape.rf)
	exec("topic u partitions=2" + shape.rf)
	subs := []string{"t", "u", "t,u"}
	next := 0
	addMember := func() {
		next++
		exec(fmt.Sprintf("member m%d group=g topics=%s assignor=%s session=%ds", next, subs[rng.IntN(len(subs))], assignor, 6+rng.IntN(10)))
	}
	for range 3 {
		addMember()
	}
	pick := func() string { return fmt.Sprintf("m%d", 1+rng.IntN(next)) }
	for range 50 {
		switch r := rng.IntN(24); {
		case r < 3:
			exec("fault drop " + []string{"request", "response"}[rng.IntN(2)])
		case r < 5:
			exec("fault duplicate " + []string{"request", "response"}[rng.IntN(2)])
		case r < 7:
			exec(fmt.Sprintf("fault delay=%dms", rng.IntN(20000)))
		case r < 13:
			exec(fmt.Sprintf("advance %dms", rng.IntN(15000)))
		case r < 14:
			shape.crash(w, rng, exec)
		case r < 16:
			addMember()
		case r < 17:
			exec("leave " + pick())
		case r < 18:
			exec("kill " + pick())
		default:
			exec(fmt.Sprintf("commit %s t-%d=%d", pick(), rng.IntN(3), rng.IntN(100)))
		}
	}
	// Quiet: no more faults, the broker up, and time beyond every
	// timeout (sessions, rebalance.timeout.ms, request timeouts).
	w.net.faults = nil
	for _, n := range w.nodes {
		if !n.Up {
			exec("restart " + n.Name)
		}
	}
	for range 40 {
		exec("advance 5s")
	}
	if trace {
		t.Log(log.String())
	}
	if shape.after != nil {
		shape.after(w)
	}
	fail := func(format string, args ...any) bool {
		t.Helper()
		t.Fatalf("seed %d (%s): %s\n(replay: GROUPSIM_SEED=%d go test ./core/sim -run TestGroupRandom -v)", seed, assignor, fmt.Sprintf(format, args...), seed)
		return false
	}
	var live []*member
	for _, name := range w.order {
		if m, ok := w.clients[name].(*member); ok && m.state < memberLeft {
			live = append(live, m)
		}
	}
	if len(live) == 0 {
		return false
	}
	coord := shape.coordinator(w)
	if coord == nil {
		return fail("group g has no coordinator")
	}
	g := coord.Broker.Groups().Group("g")
	if g == nil || g.State() != group.Stable {
		return fail("group is %v, want Stable", g)
	}
	owners := map[assign.TopicPartition]string{}
	want := map[string]bool{}
	for _, m := range live {
		if m.state != memberStable || m.generation != g.Generation() {
			return fail("%s is %s in generation %d; the coordinator is in generation %d", m.name, m.state, m.generation, g.Generation())
		}
		for _, t := range m.topics {
			want[t] = true
		}
		for _, tp := range m.owned {
			if o, dup := owners[tp]; dup {
				return fail("%s owned by %s and %s", tp, o, m.name)
			}
			if !slices.Contains(m.topics, tp.Topic) {
				return fail("%s owns %s but subscribes to %v", m.name, tp, m.topics)
			}
			owners[tp] = m.name
		}
	}
	for topic := range want {
		partitions := 0
		if im := coord.Broker.Image(); im != nil {
			partitions = len(im.Topics[topic].Partitions)
		} else {
			partitions = len(coord.Broker.Topic(topic).Partitions)
		}
		for p := range partitions {
			if _, ok := owners[assign.TopicPartition{Topic: topic, Partition: int32(p)}]; !ok {
				return fail("%s-%d has no owner; owners %v", topic, p, owners)
			}
		}
	}
	return true
}
