//go:build !noquorum

package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/cluster/quorum"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/core/wire"
)

// The quorum's types, under the names the rest of the package uses; a build
// with the noquorum tag (the browser's single-broker bundle) replaces them
// with empty ones and has no `cluster` command (cluster_off.go).
type (
	quorumNode  = quorum.Node
	raftMessage = pb.Message
)

func init() { commands["cluster"] = cmdCluster }

// HasQuorum says whether this build can run multi-broker worlds.
const HasQuorum = true

// A clustered world runs every broker in KRaft's combined mode: each node
// is a broker and a voter of the metadata quorum (core/cluster). Raft
// messages, controller requests and follower fetches all travel on the
// simulated network, so crashes and faults reach them as they reach
// clients. Raft messages, heartbeats and registrations are not printed;
// what the controller decides is, once, as the records are applied
// ("quorum" lines), and so are the follower fetches that move data or a
// high watermark.

// RaftTickMs is how much virtual time one raft tick stands for.
const RaftTickMs = 100

type simCluster struct {
	size       int // brokers in the cluster, all of them voters
	nextTick   int64
	printed    uint64 // highest metadata index printed
	ctlNext    uint64
	ctlPending map[uint64]ctlRequest
	// what each follower last told and heard, to print only follower
	// fetches that change something
	fetchOffset map[string]int64
	fetchHW     map[string]int64
	// quietEnvelopes are the Envelopes not printed, by sender, receiver
	// and request id: their answers are not printed either.
	quietEnvelopes map[string]bool
	// Unclean counts unclean elections applied, for invariant checks.
	Unclean  int
	ready    bool
	metadata []metadataEntry // the committed metadata log (metadata_view.go)
	// lead is the raft leader each node last knew, to tell its broker
	// when the controller moves (noteLead).
	lead      map[string]uint64
	sessionMs int64 // broker.session.timeout.ms
}

type ctlRequest struct {
	from  string
	reqID uint64
}

// cmdCluster: cluster N [racks=R0,R1,...] [setting=value ...] starts N
// brokers b0..bN-1 that form one cluster, and runs until each is
// registered and unfenced. racks= gives broker i the broker.rack Ri
// (KIP-36), the one setting that differs between brokers.
func cmdCluster(w *World, c command) error {
	if len(w.nodes) > 0 {
		return fmt.Errorf("cluster: start the cluster before any broker")
	}
	ns, err := c.arg(0, "number of brokers")
	if err != nil {
		return err
	}
	var n int
	if _, err := fmt.Sscan(ns, &n); err != nil || n < 1 || n > 9 {
		return fmt.Errorf("cluster: the number of brokers must be 1..9")
	}
	var racks []string
	if r, ok := c.kv["racks"]; ok {
		if racks = strings.Split(r, ","); len(racks) != n || slices.Contains(racks, "") {
			return fmt.Errorf("cluster: racks= names one rack per broker (%d), in order", n)
		}
	}
	w.cl = &simCluster{size: n, nextTick: w.now + RaftTickMs, ctlPending: map[uint64]ctlRequest{}, lead: map[string]uint64{},
		fetchOffset: map[string]int64{}, fetchHW: map[string]int64{}, quietEnvelopes: map[string]bool{}}
	for i := range n {
		settings := map[string]string{}
		for _, k := range c.keys {
			settings[k] = c.kv[k]
		}
		if delete(settings, "racks"); racks != nil {
			settings["broker.rack"] = racks[i]
		}
		if _, err := w.addNode(settings); err != nil {
			return err
		}
	}
	for limit := 0; !w.clusterReady(); limit++ {
		if limit > 600 {
			return fmt.Errorf("cluster: not ready after 60s")
		}
		w.advance(RaftTickMs)
	}
	var names []string
	for _, nd := range w.nodes {
		names = append(names, nd.Name)
	}
	w.cl.ready = true
	w.notef("quorum", "state", "brokers %s registered and unfenced; controller %s", strings.Join(names, " "), w.controllerName())
	return nil
}

// clusterReady: every up broker is registered and unfenced, in every up
// node's image.
func (w *World) clusterReady() bool {
	for _, n := range w.nodes {
		if !n.Up {
			continue
		}
		if n.Broker.ClusterEpoch() < 0 || n.Broker.Fenced() {
			return false
		}
		for _, o := range w.nodes {
			if o.Up && !o.Quorum.Image().Live(n.ID) {
				return false
			}
		}
	}
	return w.controllerName() != "none"
}

// controllerName is the broker hosting the active controller.
func (w *World) controllerName() string {
	best, term := "none", uint64(0)
	for _, n := range w.nodes {
		if n.Up && n.Quorum != nil {
			if st := n.Quorum.Status(); st.Controller && st.Term >= term {
				best, term = n.Name, st.Term
			}
		}
	}
	return best
}

func raftID(id int32) uint64 { return uint64(id) + 1 }

// startClustered opens a node's quorum member and broker.
func (w *World) startClustered(n *Node, cfg broker.Config) error {
	// Every member starts with the whole voter set, not just the nodes
	// started before it: a member bootstrapped with fewer voters would
	// never send to the others (raft only talks to its configuration).
	var voters []uint64
	for i := range w.cl.size {
		voters = append(voters, raftID(int32(i)))
	}
	sessionMs := cfg.Settings.Int64("broker.session.timeout.ms")
	w.cl.sessionMs = sessionMs
	q, err := quorum.NewNode(quorum.Config{
		ID: raftID(n.ID), Voters: voters, ElectionTicks: 10, HeartbeatTicks: 1,
		SessionTicks: sessionMs / RaftTickMs, DefaultPartitions: 1, DefaultReplicationFactor: 1,
		UncleanDefault:               cfg.Settings.Bool("unclean.leader.election.enable"),
		Settings:                     cfg.Settings,
		AutoLeaderRebalance:          cfg.Settings.Bool("auto.leader.rebalance.enable"),
		ImbalanceCheckTicks:          cfg.Settings.Int64("leader.imbalance.check.interval.seconds") * 1000 / RaftTickMs,
		ImbalancePerBrokerPercentage: int(cfg.Settings.Int64("leader.imbalance.per.broker.percentage")),
		ClusterID:                    cfg.ClusterID, // every broker of the world is formatted with it
		Rand:                         rand.New(rand.NewPCG(w.rng.Uint64(), w.rng.Uint64())), Storage: n.Store,
	})
	if err != nil {
		return err
	}
	var inc [16]byte
	for i := range inc {
		inc[i] = byte(w.rng.Uint32())
	}
	cfg.Cluster = &broker.ClusterConfig{Incarnation: inc}
	b, err := broker.New(cfg, n.Store, w.now)
	if err != nil {
		_ = q.Close()
		return err
	}
	n.Broker, n.Quorum, n.Up = b, q, true
	w.carryOut(n)
	delete(w.cl.lead, n.Name)
	err = b.ApplyMetadata(w.now, q.Image().Clone())
	w.carryOut(n)
	return err
}

// brokerSend puts a broker's request on the network: to another broker,
// or to the node it believes hosts the active controller.
func (w *World) brokerSend(n *Node, s broker.Send) {
	to, req := s.To, s.Req
	m := &Message{From: n.Name, Req: req, ReqID: s.ID, Due: w.now, Conn: brokerConnBase + uint64(n.ID)}
	if to == broker.ToController {
		m.Ctl = true
		m.To = n.Name // nobody known: our own node answers NOT_CONTROLLER
		if lead := n.Quorum.Status().Lead; lead != 0 {
			m.To = fmt.Sprintf("b%d", lead-1)
		}
	} else {
		m.To = fmt.Sprintf("b%d", to)
	}
	m.quiet = !w.visible(m)
	w.net.send(m)
	w.emit(view.Event{Kind: "send", From: m.From, To: m.To, Msg: req})
}

// process runs a quorum member's Process and routes its output.
func (w *World) process(n *Node) {
	if !n.Up || n.Quorum == nil {
		return
	}
	out, err := n.Quorum.Process()
	if err != nil {
		// The metadata log could not be written (a full or failing
		// disk): the node halts, as Kafka's does; a restart recovers it.
		w.notef(n.Name, "error", "metadata quorum: %v", err)
		if errors.Is(err, quorum.ErrHalted) {
			_ = cmdCrash(w, command{name: "crash", args: []string{n.Name, "process"}})
		}
		return
	}
	for _, m := range out.Messages {
		w.net.send(&Message{From: n.Name, To: fmt.Sprintf("b%d", m.GetTo()-1), Raft: m, Due: w.now, quiet: true})
	}
	for _, r := range out.Responses {
		cr, ok := w.cl.ctlPending[r.ID]
		if !ok {
			continue
		}
		delete(w.cl.ctlPending, r.ID)
		m := &Message{From: n.Name, To: cr.from, Resp: r.Msg, ReqID: cr.reqID, Ctl: true, Due: w.now}
		m.quiet = !w.visible(m)
		w.net.send(m)
	}
	w.noteLead(n)
	if len(out.Applied) > 0 {
		w.printApplied(n, out.Applied)
		if err := n.Broker.ApplyMetadata(w.now, n.Quorum.Image().Clone()); err != nil {
			w.notef(n.Name, "error", "applying metadata: %v", err)
		}
		w.commit(n)
	}
}

// noteLead tells n's broker when the node it sends controller requests to
// changes (Broker.ControllerMoved), as the native driver does.
func (w *World) noteLead(n *Node) {
	lead := n.Quorum.Status().Lead
	if was, ok := w.cl.lead[n.Name]; ok && was != lead {
		before := observe(n)
		n.Broker.ControllerMoved(w.now)
		w.commit(n)
		w.report(n, before)
	}
	w.cl.lead[n.Name] = lead
}

// printApplied prints what the controller decided, once per entry.
func (w *World) printApplied(n *Node, applied []quorum.Applied) {
	for _, a := range applied {
		if a.Index <= w.cl.printed {
			continue
		}
		w.cl.printed = a.Index
		w.cl.remember(a) // metadata_view.go
		if a.Batch == nil {
			continue
		}
		for i, r := range a.Batch.Records {
			if a.Errs[i] != nil {
				continue
			}
			switch {
			case r.FenceBroker != nil:
				w.notef("quorum", "state", "b%d fenced", r.FenceBroker.ID)
			case r.BrokerChange != nil && r.BrokerChange.InControlledShutdown:
				w.notef("quorum", "state", "b%d in controlled shutdown: still registered and unfenced, it leads nothing and leaves the ISRs", r.BrokerChange.ID)
			case r.BrokerChange != nil && r.BrokerChange.LogDirOffline:
				w.notef("quorum", "state", "b%d log dir offline: it leads nothing and leaves the ISRs", r.BrokerChange.ID)
			case r.UnfenceBroker != nil && w.clusterStarted():
				w.notef("quorum", "state", "b%d unfenced", r.UnfenceBroker.ID)
			case r.RegisterBroker != nil && w.clusterStarted():
				w.notef("quorum", "state", "b%d registered", r.RegisterBroker.ID)
			case r.Topic != nil:
				w.notef("quorum", "state", "topic %s created", r.Topic.Name)
			case r.RemoveTopic != nil:
				w.notef("quorum", "state", "topic %s deleted", r.RemoveTopic.Name)
			}
		}
		for _, d := range a.Deltas {
			if d.After == nil {
				continue // its topic's deletion is printed above
			}
			w.notef("quorum", "state", "%s", describeDelta(d))
			if d.Unclean {
				w.cl.Unclean++
			}
		}
	}
}

// clusterStarted: the cluster command has finished starting the brokers.
func (w *World) clusterStarted() bool { return w.cl.ready }

func describeDelta(d cluster.PartitionDelta) string {
	a := d.After
	s := fmt.Sprintf("%s-%d leader=%s epoch=%d isr=%s", d.Topic, d.Partition, leaderName(a.Leader), a.LeaderEpoch, idList(a.ISR))
	switch {
	case d.Before == nil:
		s += fmt.Sprintf(" replicas=%s", idList(a.Replicas))
	case a.Reassigning():
		s += fmt.Sprintf(" replicas=%s (reassigning: adding %s, removing %s)", idList(a.Replicas), idList(a.AddingReplicas), idList(a.RemovingReplicas))
	case d.Before.Reassigning() && slices.ContainsFunc(d.Before.AddingReplicas, func(r int32) bool { return !slices.Contains(a.Replicas, r) }):
		// A completed move keeps every added replica; a cancelled one
		// (KIP-455) drops them and keeps the original replicas.
		s += fmt.Sprintf(" replicas=%s (reassignment cancelled)", idList(a.Replicas))
	case d.Before.Reassigning() || !slices.Equal(d.Before.Replicas, a.Replicas):
		s += fmt.Sprintf(" replicas=%s (reassignment done)", idList(a.Replicas))
	case d.Unclean:
		s += " (unclean election: records only the old ISR had are lost)"
	case d.Preferred:
		s += " (preferred leader elected)"
	case d.Before.Leader != a.Leader && a.Leader == cluster.NoLeader:
		s += " (offline: no in-sync replica is live)"
	case d.Before.Leader != a.Leader:
		s += " (leader elected from the ISR)"
	case len(a.ISR) < len(d.Before.ISR):
		s += " (ISR shrank)"
	case len(a.ISR) > len(d.Before.ISR):
		s += " (ISR grew)"
	}
	return s
}

func leaderName(id int32) string {
	if id == cluster.NoLeader {
		return "none"
	}
	return fmt.Sprintf("b%d", id)
}

func idList(ids []int32) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("b%d", id)
	}
	return "[" + strings.Join(out, " ") + "]"
}

// deliverInternal hands a raft message, a controller request or a
// response to a broker's own request to its node. It reports false for
// client traffic.
func (w *World) deliverInternal(m *Message) bool {
	switch {
	case m.Raft != nil:
		if n, err := w.node(m.To); err == nil && n.Up {
			if err := n.Quorum.Step(m.Raft); err == nil {
				w.process(n)
			}
		}
		return true
	case m.Ctl && m.Req != nil:
		n, err := w.node(m.To)
		if err != nil || !n.Up {
			return true
		}
		if !m.quiet {
			w.emit(view.Event{Kind: "deliver", From: m.From, To: m.To, Msg: m.Req, Text: arrow(m.From, m.To) + describe.Message(m.Req)})
		}
		if env, ok := m.Req.(*kmsg.EnvelopeRequest); ok {
			w.unwrap(n, m, env)
			return true
		}
		w.cl.ctlNext++
		w.cl.ctlPending[w.cl.ctlNext] = ctlRequest{from: m.From, reqID: m.ReqID}
		n.Quorum.Submit(w.cl.ctlNext, m.Req)
		w.process(n)
		return true
	case m.Resp != nil && (m.Ctl || m.ReqID != 0):
		n, err := w.node(m.To)
		if err != nil || !n.Up {
			return true
		}
		if !m.quiet {
			w.emit(view.Event{Kind: "deliver", From: m.From, To: m.To, Msg: m.Resp, Text: arrow(m.From, m.To) + describe.Message(m.Resp)})
		}
		before := observe(n)
		n.Broker.Receive(w.now, m.ReqID, m.Resp)
		w.commit(n)
		w.report(n, before)
		return true
	}
	return false
}

// unwrap hands an Envelope (a client's request a broker forwarded,
// core/broker/envelope.go) to the broker of the node hosting the active
// controller, which answers it; another node answers NOT_CONTROLLER, as
// the native driver does.
func (w *World) unwrap(n *Node, m *Message, env *kmsg.EnvelopeRequest) {
	if !n.Quorum.Status().Controller {
		w.fromBroker(n, broker.Response{Conn: m.Conn, CorrelationID: int32(uint32(m.ReqID)), Msg: broker.EnvelopeError(env, kerr.NotController.Code)})
		return
	}
	before := observe(n)
	n.Broker.HandleEnvelope(w.now, broker.Request{Conn: m.Conn, Msg: env,
		Header: wire.Header{Key: env.Key(), Version: env.GetVersion(), CorrelationID: int32(uint32(m.ReqID)), ClientID: m.From}})
	w.commit(n)
	w.report(n, before)
}

// visible decides whether a message between brokers is printed: never
// raft, heartbeats or registrations; AlterPartition always;
// OffsetForLeaderEpoch unless it asks again what the follower asked
// before; a follower fetch when it reports a new offset, and its answer
// when it carries records, a new high watermark or an error.
func (w *World) visible(m *Message) bool {
	switch msg := m.body().(type) {
	case *pb.Message, *kmsg.BrokerHeartbeatRequest, *kmsg.BrokerHeartbeatResponse,
		*kmsg.BrokerRegistrationRequest, *kmsg.BrokerRegistrationResponse:
		return false
	case *kmsg.CreateTopicsRequest, *kmsg.CreateTopicsResponse:
		return !m.Ctl
	case *kmsg.EnvelopeRequest:
		// A forwarded request reads as the Envelope naming it, and its
		// answer is drawn going back, but for CreateTopics, whose records
		// the quorum prints.
		h, _, err := wire.ParseForwarded(msg.RequestData)
		shown := err == nil && h.Key != kmsg.CreateTopics.Int16()
		if !shown {
			w.cl.quietEnvelopes[fmt.Sprintf("%s>%s#%d", m.From, m.To, m.ReqID)] = true
		}
		return shown
	case *kmsg.EnvelopeResponse:
		key := fmt.Sprintf("%s>%s#%d", m.To, m.From, m.ReqID)
		quiet := w.cl.quietEnvelopes[key]
		delete(w.cl.quietEnvelopes, key)
		return !quiet
	case *kmsg.FetchRequest:
		if m.ReqID == 0 {
			return true
		}
		changed := false
		for _, t := range msg.Topics {
			for _, p := range t.Partitions {
				key := fmt.Sprintf("%s>%s/%s-%d", m.From, m.To, t.Topic, p.Partition)
				if last, ok := w.cl.fetchOffset[key]; !ok || last != p.FetchOffset {
					changed = true
				}
				w.cl.fetchOffset[key] = p.FetchOffset
			}
		}
		return changed
	case *kmsg.OffsetForLeaderEpochRequest:
		changed := false
		for _, t := range msg.Topics {
			for _, p := range t.Partitions {
				key := fmt.Sprintf("%s>%s/%s-%d/epoch", m.From, m.To, t.Topic, p.Partition)
				asked := int64(p.CurrentLeaderEpoch)<<32 | int64(uint32(p.LeaderEpoch))
				if last, ok := w.cl.fetchOffset[key]; !ok || last != asked {
					changed = true
				}
				w.cl.fetchOffset[key] = asked
			}
		}
		return changed
	case *kmsg.FetchResponse:
		if m.ReqID == 0 {
			return true
		}
		changed := msg.ErrorCode != 0
		for _, t := range msg.Topics {
			for _, p := range t.Partitions {
				key := fmt.Sprintf("%s>%s/%s-%d", m.To, m.From, t.Topic, p.Partition)
				if last, ok := w.cl.fetchHW[key]; !ok || last != p.HighWatermark || len(p.RecordBatches) > 0 || p.ErrorCode != 0 {
					changed = true
				}
				w.cl.fetchHW[key] = p.HighWatermark
			}
		}
		return changed
	case kmsg.Request:
		// At the controller's node, the request of an Envelope goes on
		// to the quorum controller: the Envelope told it already.
		return !(m.Ctl && m.From == m.To && wire.Forwardable(msg.Key()))
	case kmsg.Response:
		return !(m.Ctl && m.From == m.To && wire.Forwardable(msg.Key()))
	}
	return true
}

// tickCluster ticks every up quorum member for each raft tick due.
func (w *World) tickCluster() {
	for w.cl != nil && w.cl.nextTick <= w.now {
		w.cl.nextTick += RaftTickMs
		for _, n := range w.nodes {
			if n.Up {
				n.Quorum.Tick()
				w.process(n)
			}
		}
		w.stopWhenReady()
	}
}

// Leader returns the broker the image of any up node names leader of tp.
func (w *World) Leader(topic string, partition int32) *Node {
	for _, n := range w.nodes {
		if !n.Up || n.Quorum == nil {
			continue
		}
		if p := n.Quorum.Image().Partition(topic, partition); p != nil && p.Leader >= 0 && int(p.Leader) < len(w.nodes) {
			return w.nodes[p.Leader]
		}
	}
	return nil
}

// UncleanElections is how many unclean elections were applied so far.
func (w *World) UncleanElections() int {
	if w.cl == nil {
		return 0
	}
	return w.cl.Unclean
}

// showReplicas prints every replica of a partition: its LEO, high
// watermark and role, and the ISR as the metadata has it.
func (w *World) showReplicas(topic string, part int32) error {
	if w.cl == nil {
		return fmt.Errorf("show replicas: this world is not a cluster")
	}
	var ip *cluster.Partition
	for _, n := range w.nodes {
		if n.Up {
			if p := n.Quorum.Image().Partition(topic, part); p != nil {
				ip = p
				break
			}
		}
	}
	if ip == nil {
		return fmt.Errorf("show replicas: no partition %s-%d", topic, part)
	}
	tp := fmt.Sprintf("%s-%d", topic, part)
	moving := ""
	if ip.Reassigning() {
		moving = fmt.Sprintf(" adding=%s removing=%s", idList(ip.AddingReplicas), idList(ip.RemovingReplicas))
	}
	w.notef("quorum", "view", "%s leader=%s epoch=%d isr=%s%s", tp, leaderName(ip.Leader), ip.LeaderEpoch, idList(ip.ISR), moving)
	for _, r := range ip.Replicas {
		n := w.nodes[r]
		if !n.Up {
			w.notef(n.Name, "view", "  %s down", tp)
			continue
		}
		t := n.Broker.Topic(topic)
		if t == nil || int(part) >= len(t.Partitions) {
			w.notef(n.Name, "view", "  %s no replica yet", tp)
			continue
		}
		p := t.Partitions[part]
		role := "follower"
		switch {
		case p.Leader == n.ID && ip.Leader == n.ID:
			role = "leader"
		case p.Leader == n.ID:
			// Its metadata is behind the quorum's (a partition, a lost
			// heartbeat): it still acts as leader of an older epoch.
			role = fmt.Sprintf("still leader of epoch %d in its own view", p.LeaderEpoch)
		}
		if !ip.InISR(n.ID) {
			role += ", out of sync"
		}
		w.notef(n.Name, "view", "  %s leo=%d hw=%d (%s)", tp, p.Log().EndOffset(), p.HighWatermark, role)
	}
	return nil
}

// showController prints which broker hosts the active controller and, as
// that controller sees them, every broker's state and how long ago it
// last heard from it.
func (w *World) showController() error {
	if w.cl == nil {
		return fmt.Errorf("show controller: this world is not a cluster")
	}
	name := w.controllerName()
	if name == "none" {
		w.notef("quorum", "view", "no active controller: the quorum is electing one")
		return nil
	}
	n, _ := w.node(name)
	st := n.Quorum.Status()
	w.notef("quorum", "view", "controller %s (raft term %d)", name, st.Term)
	im := n.Quorum.Image()
	session := w.cl.sessionMs
	for _, id := range im.BrokerIDs() {
		state := "live"
		if br := im.Brokers[id]; br.Fenced {
			state = "fenced"
		}
		if ticks, ok := n.Quorum.SinceHeard(id); ok {
			state += fmt.Sprintf(", heard %dms ago (session %dms)", ticks*RaftTickMs, session)
		}
		w.notef("quorum", "view", "  b%d %s", id, state)
	}
	return nil
}

// stopWhenReady ends the processes of the stopping brokers the controller
// has let go, and of the brokers halted by a failed log dir
// (core/broker/log_dir_failure.go): those crash, as the native server
// exits with status 1.
func (w *World) stopWhenReady() {
	for _, n := range w.nodes {
		if n.Up && n.Broker.Halted() {
			w.notef(n.Name, "error", "log dir failed: the broker halts (exit status 1); restart recovers it")
			w.takeDown(n, true)
			continue
		}
		if n.Up && n.stopping && n.Broker.ShutdownReady() {
			w.notef(n.Name, "state", "controlled shutdown granted: it leads nothing")
			w.takeDown(n, true)
			n.stopped = true
		}
	}
}
