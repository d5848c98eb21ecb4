package quorum

import (
	"crypto/sha256"
	"fmt"
	"github.com/gregor-kafka/gregor/core/cluster"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/gregor-kafka/gregor/core/store"
)

// harness runs a quorum of Nodes over a simulated network it controls:
// messages wait in a queue for their delivery tick and may be dropped,
// delayed or cut off by a partition; nodes crash (losing unsynced writes)
// and restart from their storage. Brokers are simulated too: they
// register, heartbeat and answer to the active controller. Everything is
// driven from one seeded generator, so a run replays exactly.
type harness struct {
	t        testing.TB
	seed     uint64
	rng      *rand.Rand
	ids      []uint64
	nodes    map[uint64]*Node // nil while crashed
	stores   map[uint64]*store.Mem
	restarts map[uint64]uint64
	base     Config

	now      int64
	queue    []envelope
	drop     float64 // probability a message is lost
	maxDelay int     // extra ticks of delay, drawn in [0, maxDelay]
	cut      map[[2]uint64]bool

	brokers   map[int32]*simBroker
	hbEvery   int64
	responses map[uint64]kmsg.Response
	nextReq   uint64
	onReply   map[uint64]func(kmsg.Response)

	// invariant bookkeeping
	entries map[uint64]string // raft index -> digest of the applied entry
	images  map[uint64]string // image index -> digest of the image
	epochs  map[uint64]map[string][2]int32
	onDelta func(node uint64, d cluster.PartitionDelta, im *cluster.Image)
	observe func(Applied) // sees everything node 1 applies
}

type envelope struct {
	at int64
	m  *pb.Message
}

// simBroker is a broker as the controller sees it: a registration and a
// heartbeat every hbEvery ticks while it is up.
type simBroker struct {
	id          int32
	up          bool
	epoch       int64
	incarnation cluster.UUID
	registering bool
	regAt       int64
	fenced      bool
	// clusterID is the id the broker's data carries: adopted from the
	// image at its first registration, kept across restarts.
	clusterID string
	// refused counts registrations answered INCONSISTENT_CLUSTER_ID.
	refused int
	// wantShutdown and dirOffline go in its heartbeats; shouldShutdown is
	// the last answer's.
	wantShutdown, dirOffline, shouldShutdown bool
}

func newHarness(t testing.TB, seed uint64, voters int, base Config) *harness {
	h := &harness{t: t, seed: seed, rng: rand.New(rand.NewPCG(seed, 0xc1)), nodes: map[uint64]*Node{},
		stores: map[uint64]*store.Mem{}, restarts: map[uint64]uint64{}, base: base, cut: map[[2]uint64]bool{},
		brokers: map[int32]*simBroker{}, hbEvery: 2, responses: map[uint64]kmsg.Response{},
		onReply: map[uint64]func(kmsg.Response){}, entries: map[uint64]string{}, images: map[uint64]string{},
		epochs: map[uint64]map[string][2]int32{}}
	for i := 1; i <= voters; i++ {
		h.ids = append(h.ids, uint64(i))
	}
	for _, id := range h.ids {
		h.stores[id] = store.NewMem()
		h.start(id)
	}
	return h
}

func (h *harness) fatalf(format string, args ...any) {
	h.t.Helper()
	h.t.Fatalf("seed %d tick %d: %s\nreplay: go test ./core/cluster -run %s -seed=%d",
		h.seed, h.now, fmt.Sprintf(format, args...), h.t.Name(), h.seed)
}

func (h *harness) start(id uint64) {
	cfg := h.base
	cfg.ID, cfg.Voters, cfg.Storage = id, h.ids, h.stores[id]
	cfg.Rand = rand.New(rand.NewPCG(h.seed^id, h.restarts[id]))
	n, err := NewNode(cfg)
	if err != nil {
		h.fatalf("start node %d: %v", id, err)
	}
	h.nodes[id] = n
	h.epochs[id] = map[string][2]int32{}
}

// crash stops a node and drops what it had not synced.
func (h *harness) crash(id uint64) {
	if n := h.nodes[id]; n != nil {
		_ = n.Close()
		h.stores[id].Crash()
		h.nodes[id] = nil
	}
}

func (h *harness) restart(id uint64) {
	if h.nodes[id] == nil {
		h.restarts[id]++
		h.start(id)
	}
}

func (h *harness) linked(a, b uint64) bool { return !h.cut[[2]uint64{min(a, b), max(a, b)}] }

// isolate cuts a node off from every other node; heal undoes all cuts.
func (h *harness) isolate(id uint64) {
	for _, o := range h.ids {
		if o != id {
			h.cut[[2]uint64{min(id, o), max(id, o)}] = true
		}
	}
}

func (h *harness) heal() { clear(h.cut) }

// controller returns the active controller, preferring the highest term.
func (h *harness) controller() *Node {
	var best *Node
	for _, id := range h.ids {
		n := h.nodes[id]
		if n != nil && n.Status().Controller && (best == nil || n.Status().Term > best.Status().Term) {
			best = n
		}
	}
	return best
}

// submit sends a request to the active controller; reply (optional)
// receives the response. It returns the request id, or 0 if there was
// no controller to send it to.
func (h *harness) submit(req kmsg.Request, reply func(kmsg.Response)) uint64 {
	c := h.controller()
	if c == nil {
		return 0
	}
	h.nextReq++
	if reply != nil {
		h.onReply[h.nextReq] = reply
	}
	c.Submit(h.nextReq, req)
	h.process(c)
	return h.nextReq
}

// tick advances the world one tick: due messages are delivered (several
// rounds, so zero-delay messages arrive within the tick), every node ticks
// and brokers heartbeat.
func (h *harness) tick() {
	h.now++
	for _, id := range h.ids {
		if n := h.nodes[id]; n != nil {
			n.Tick()
			h.process(n)
		}
	}
	h.brokersTick()
	for range 20 {
		if !h.deliver() {
			break
		}
	}
}

func (h *harness) run(ticks int) {
	for range ticks {
		h.tick()
	}
}

// runUntil ticks until cond holds, failing after limit ticks.
func (h *harness) runUntil(limit int, what string, cond func() bool) {
	h.t.Helper()
	for range limit {
		if cond() {
			return
		}
		h.tick()
	}
	if !cond() {
		h.fatalf("after %d ticks: still not %s\n%s", limit, what, h.describe())
	}
}

func (h *harness) deliver() bool {
	var due, later []envelope
	for _, e := range h.queue {
		if e.at <= h.now {
			due = append(due, e)
		} else {
			later = append(later, e)
		}
	}
	h.queue = later
	for _, e := range due {
		to := e.m.GetTo()
		n := h.nodes[to]
		if n == nil || !h.linked(e.m.GetFrom(), to) {
			continue
		}
		_ = n.Step(e.m)
		h.process(n)
	}
	return len(due) > 0
}

func (h *harness) process(n *Node) {
	out, err := n.Process()
	if err != nil {
		h.fatalf("node %d: process: %v", n.ID(), err)
	}
	for _, m := range out.Messages {
		if h.drop > 0 && h.rng.Float64() < h.drop {
			continue
		}
		d := 0
		if h.maxDelay > 0 {
			d = h.rng.IntN(h.maxDelay + 1)
		}
		h.queue = append(h.queue, envelope{at: h.now + int64(d), m: m})
	}
	for _, r := range out.Responses {
		h.responses[r.ID] = r.Msg
		if f := h.onReply[r.ID]; f != nil {
			delete(h.onReply, r.ID)
			f(r.Msg)
		}
	}
	h.check(n, out.Applied)
}

// check holds the invariants over what a node applied.
func (h *harness) check(n *Node, applied []Applied) {
	id := n.ID()
	for _, a := range applied {
		if h.observe != nil && id == 1 {
			h.observe(a)
		}
		if a.Snapshot {
			h.epochs[id] = map[string][2]int32{}
			continue
		}
		data := []byte(fmt.Sprint(a.Term))
		if a.Batch != nil {
			data = append(data, cluster.EncodeBatch(a.Batch)...)
		}
		sum := fmt.Sprintf("%x", sha256.Sum256(data))
		if prev, ok := h.entries[a.Index]; ok && prev != sum {
			h.fatalf("node %d applied a different entry at index %d (raft safety)", id, a.Index)
		}
		h.entries[a.Index] = sum
		for _, d := range a.Deltas {
			h.checkDelta(id, d, n.Image())
		}
	}
	im := n.Image()
	sum := fmt.Sprintf("%x", sha256.Sum256(im.Encode()))
	if prev, ok := h.images[im.Index]; ok && prev != sum {
		h.fatalf("node %d has a different image at index %d:\n%s", id, im.Index, im.Encode())
	}
	h.images[im.Index] = sum
	for _, name := range im.TopicNames() {
		for i, p := range im.Topics[name].Partitions {
			if p.Leader != cluster.NoLeader && !p.InISR(p.Leader) {
				h.fatalf("node %d: %s-%d leader %d not in ISR %v", id, name, i, p.Leader, p.ISR)
			}
		}
	}
}

func (h *harness) checkDelta(id uint64, d cluster.PartitionDelta, im *cluster.Image) {
	key := fmt.Sprintf("%s-%d", d.Topic, d.Partition)
	a := d.After
	if a == nil { // removed with its topic: a topic of that name starts anew
		delete(h.epochs[id], key)
		if h.onDelta != nil {
			h.onDelta(id, d, im)
		}
		return
	}
	if last, ok := h.epochs[id][key]; ok && (a.LeaderEpoch < last[0] || a.PartitionEpoch <= last[1]) {
		h.fatalf("node %d: %s epochs went from %v to leader %d partition %d", id, key, last, a.LeaderEpoch, a.PartitionEpoch)
	}
	h.epochs[id][key] = [2]int32{a.LeaderEpoch, a.PartitionEpoch}
	if h.onDelta != nil {
		h.onDelta(id, d, im)
	}
	b := d.Before
	if b == nil {
		return
	}
	if a.PartitionEpoch != b.PartitionEpoch+1 {
		h.fatalf("node %d: %s partition epoch %d -> %d", id, key, b.PartitionEpoch, a.PartitionEpoch)
	}
	if (a.Leader != b.Leader) != (a.LeaderEpoch == b.LeaderEpoch+1) || a.LeaderEpoch < b.LeaderEpoch {
		h.fatalf("node %d: %s leader %d@%d -> %d@%d", id, key, b.Leader, b.LeaderEpoch, a.Leader, a.LeaderEpoch)
	}
	outOfSync := a.Leader != cluster.NoLeader && a.Leader != b.Leader && !b.InISR(a.Leader)
	if outOfSync != d.Unclean {
		h.fatalf("node %d: %s leader %d from ISR %v, unclean=%v", id, key, a.Leader, b.ISR, d.Unclean)
	}
	if d.Unclean && (!im.UncleanLeaderElection(d.Topic, h.base.UncleanDefault) || !slices.Equal(a.ISR, []int32{a.Leader})) {
		h.fatalf("node %d: %s unclean election to %d (ISR %v) not allowed", id, key, a.Leader, a.ISR)
	}
}

// addBroker brings up a simulated broker, which registers itself.
func (h *harness) addBroker(id int32) {
	h.brokers[id] = &simBroker{id: id, up: true}
}

// stopBroker stops a broker's heartbeats (a crash).
func (h *harness) stopBroker(id int32) { h.brokers[id].up = false }

// startBroker restarts a broker with a new incarnation and its data.
func (h *harness) startBroker(id int32) {
	b := h.brokers[id]
	*b = simBroker{id: id, up: true, clusterID: b.clusterID}
}

func (h *harness) brokersTick() {
	ids := make([]int32, 0, len(h.brokers))
	for id := range h.brokers {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		b := h.brokers[id]
		if b.registering && h.now-b.regAt > 50 {
			b.registering = false // the controller went away with it
		}
		if !b.up || b.registering || (h.now+int64(id))%h.hbEvery != 0 {
			continue
		}
		c := h.controller()
		if c == nil {
			continue
		}
		if b.epoch == 0 {
			if b.incarnation == (cluster.UUID{}) {
				b.incarnation = cluster.UUID{byte(id), byte(h.now), byte(h.now >> 8), 1}
			}
			if b.clusterID == "" {
				// Fresh data: adopt the cluster's id once it is known.
				if b.clusterID = c.Image().ClusterID; b.clusterID == "" {
					continue
				}
			}
			req := kmsg.NewPtrBrokerRegistrationRequest()
			req.BrokerID, req.IncarnationID, req.ClusterID = id, b.incarnation, b.clusterID
			b.registering, b.regAt = true, h.now
			inc := b.incarnation
			if h.submit(req, func(r kmsg.Response) {
				resp := r.(*kmsg.BrokerRegistrationResponse)
				if b.incarnation == inc {
					b.registering = false
					switch resp.ErrorCode {
					case 0:
						b.epoch = resp.BrokerEpoch
					case kerr.InconsistentClusterID.Code:
						b.refused++
					}
				}
			}) == 0 {
				b.registering = false
			}
			continue
		}
		req := kmsg.NewPtrBrokerHeartbeatRequest()
		req.BrokerID, req.BrokerEpoch, req.CurrentMetadataOffset = id, b.epoch, int64(c.Image().Index)
		req.WantShutdown = b.wantShutdown
		if b.dirOffline {
			req.OfflineLogDirs = [][16]byte{b.incarnation}
		}
		epoch := b.epoch
		h.submit(req, func(r kmsg.Response) {
			resp := r.(*kmsg.BrokerHeartbeatResponse)
			if b.epoch != epoch {
				return
			}
			switch resp.ErrorCode {
			case 0:
				b.fenced, b.shouldShutdown = resp.IsFenced, resp.ShouldShutdown
			case kerr.StaleBrokerEpoch.Code, kerr.BrokerIDNotRegistered.Code:
				b.epoch = 0 // register again
			}
		})
	}
}

// allUnfenced reports whether every up broker is registered and unfenced
// in the controller's image.
func (h *harness) allUnfenced() bool {
	c := h.controller()
	if c == nil {
		return false
	}
	for id, b := range h.brokers {
		if b.up && !c.Image().Live(id) {
			return false
		}
	}
	return true
}

// createTopic creates a topic through the controller and waits for it.
func (h *harness) createTopic(name string, partitions int32, rf int16, configs map[string]string) {
	h.t.Helper()
	var code int16 = -1
	h.runUntil(200, "topic "+name+" created", func() bool {
		if code == 0 {
			return true
		}
		if code == -1 || code == kerr.NotController.Code {
			req := kmsg.NewPtrCreateTopicsRequest()
			t := kmsg.NewCreateTopicsRequestTopic()
			t.Topic, t.NumPartitions, t.ReplicationFactor = name, partitions, rf
			keys := make([]string, 0, len(configs))
			for k := range configs {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				cfg := kmsg.NewCreateTopicsRequestTopicConfig()
				cfg.Name, cfg.Value = k, new(configs[k])
				t.Configs = append(t.Configs, cfg)
			}
			req.Topics = append(req.Topics, t)
			code = -2
			if h.submit(req, func(r kmsg.Response) { code = r.(*kmsg.CreateTopicsResponse).Topics[0].ErrorCode }) == 0 {
				code = -1
			}
		} else if code > 0 {
			h.fatalf("create topic %s: %v", name, kerr.ErrorForCode(code))
		}
		return false
	})
}

// alterISR sends an AlterPartition from the partition's leader and waits
// for the answer; it returns the partition's error code.
func (h *harness) alterISR(topic string, part int32, leaderEpoch, partEpoch int32, isr []int32, recovery int8) int16 {
	h.t.Helper()
	c := h.controller()
	p := c.Image().Partition(topic, part)
	leader := c.Image().Brokers[p.Leader]
	req := kmsg.NewPtrAlterPartitionRequest()
	req.BrokerID, req.BrokerEpoch = leader.ID, leader.Epoch
	rt := kmsg.NewAlterPartitionRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewAlterPartitionRequestTopicPartition()
	rp.Partition, rp.LeaderEpoch, rp.PartitionEpoch, rp.NewISR, rp.LeaderRecoveryState = part, leaderEpoch, partEpoch, isr, recovery
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	var code int16 = -1
	h.submit(req, func(r kmsg.Response) {
		resp := r.(*kmsg.AlterPartitionResponse)
		code = resp.ErrorCode
		if code == 0 {
			code = resp.Topics[0].Partitions[0].ErrorCode
		}
	})
	h.runUntil(50, "AlterPartition answered", func() bool { return code != -1 })
	return code
}

// agree checks every running node has applied the same image.
func (h *harness) agree() {
	h.t.Helper()
	var first *Node
	for _, id := range h.ids {
		n := h.nodes[id]
		if n == nil {
			continue
		}
		if first == nil {
			first = n
			continue
		}
		if a, b := first.Image().Encode(), n.Image().Encode(); string(a) != string(b) {
			h.fatalf("node %d and node %d differ:\n%s\n%s", first.ID(), n.ID(), a, b)
		}
	}
}
