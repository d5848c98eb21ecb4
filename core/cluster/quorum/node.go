package quorum

import (
	"fmt"
	"github.com/gregor-kafka/gregor/core/cluster"
	"math/rand/v2"

	"github.com/twmb/franz-go/pkg/kmsg"
	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/gregor-kafka/gregor/core/config"
	"github.com/gregor-kafka/gregor/core/store"
)

// Config configures a Node. Times are in ticks; the driver decides what a
// tick is (the server: a fixed wall-clock interval; the simulator: a step).
type Config struct {
	// ID is this node's id in the quorum (Kafka's node.id); not 0.
	ID uint64
	// Voters is the initial quorum (controller.quorum.voters). Used only
	// when the storage holds no state yet; every voter must get the same.
	Voters []uint64
	// ElectionTicks is how long a follower waits without hearing from a
	// leader before it forgets it and may vote for another; it campaigns
	// after a timeout drawn from [ElectionTicks, 2*ElectionTicks). A
	// leader that has not heard from a quorum for as long steps down.
	// Default 10.
	ElectionTicks int
	// HeartbeatTicks is the leader's heartbeat interval. Default 1.
	HeartbeatTicks int
	// SessionTicks is the broker session timeout: an unfenced broker the
	// controller has not heard a heartbeat from for longer is fenced
	// (broker.session.timeout.ms). Default 18.
	SessionTicks int64
	// SnapshotEvery takes a snapshot and compacts the log after this many
	// applied entries. Default 1024.
	SnapshotEvery uint64
	// DefaultPartitions and DefaultReplicationFactor fill in CreateTopics'
	// -1s (num.partitions, default.replication.factor). Default 1 and 1.
	DefaultPartitions        int32
	DefaultReplicationFactor int16
	// UncleanDefault is unclean.leader.election.enable for topics that do
	// not set it.
	UncleanDefault bool
	// Settings are the node's static broker settings: they bound the
	// group configs the controller accepts (group.share.min.* and the
	// like, with the cluster-wide dynamic ones). Nil: the defaults.
	Settings *config.Broker
	// AutoLeaderRebalance, ImbalanceCheckTicks and
	// ImbalancePerBrokerPercentage are auto.leader.rebalance.enable,
	// leader.imbalance.check.interval.seconds (in ticks) and
	// leader.imbalance.per.broker.percentage (rebalance.go). Off by
	// default.
	AutoLeaderRebalance          bool
	ImbalanceCheckTicks          int64
	ImbalancePerBrokerPercentage int
	// ClusterID is the id the first controller writes into a metadata log
	// that has none (what kafka-storage format's --cluster-id gives
	// Kafka); empty draws a random one from Rand. A log that has an id
	// keeps it whatever later controllers are configured with.
	ClusterID string
	// BootstrapScram are SCRAM credentials an active controller writes
	// into the metadata log when the user has none of that mechanism
	// (kafka-storage format's --add-scram): the first admin of a cluster
	// whose listeners all need SASL.
	BootstrapScram []*cluster.ScramCredential
	// Features are the feature levels a new cluster starts with instead
	// of the release's (kafka-storage format's --feature name=level);
	// a log that has levels keeps them.
	Features map[string]int16
	// ProducerIDBlock is how many producer ids one AllocateProducerIds
	// hands out. Default 1000, as Kafka.
	ProducerIDBlock int32
	// Rand draws election timeouts, topic ids and placement starts. Nil
	// means a generator seeded with ID: runs stay reproducible.
	Rand *rand.Rand
	// Storage persists the raft log, hard state and snapshots; nil keeps
	// them in memory only (lost on restart).
	Storage store.Storage
	// Dir is the directory in Storage; default DefaultDir.
	Dir string
	// Logger receives raft's log; nil discards it.
	Logger raft.Logger
}

// Node is one member of the metadata quorum: a raft.RawNode, the metadata
// image it applies, and, while it leads, the controller.
//
// A Node does no I/O and keeps no time of its own. The driver calls Tick
// at a fixed interval, Step for every raft message that arrives, Submit
// for every controller request, and then Process, which persists, applies
// and returns the messages to send and the responses to return. All from
// one goroutine.
type Node struct {
	cfg       Config
	rn        *raft.RawNode
	ms        *raft.MemoryStorage
	disk      *disk
	image     *cluster.Image
	confState *pb.ConfState
	snapIndex uint64

	now     int64 // ticks since the node started
	idle    int   // ticks since we last heard from a leader (non-leaders)
	timeout int   // current randomized election timeout
	state   raft.StateType
	lead    uint64
	ctl     *controller

	responses []Response
	applied   []Applied
	halted    error // why Process failed; it fails from then on (process.go)
}

// Response is a controller response to a Submit'ed request.
type Response struct {
	ID  uint64 // the id given to Submit
	Msg kmsg.Response
}

// Applied is one committed entry applied to the image, or a snapshot that
// replaced it.
type Applied struct {
	Index uint64
	Term  uint64
	// Batch is the entry's records; nil for raft's own entries and for a
	// snapshot.
	Batch *cluster.Batch
	// Errs says, per record, why it was skipped (nil: applied).
	Errs []error
	// Deltas are the partitions the batch changed, in record order.
	Deltas []cluster.PartitionDelta
	// Snapshot: the image was replaced by a snapshot at Index; reload it
	// whole.
	Snapshot bool
}

// Output is what Process hands back to the driver.
type Output struct {
	// Messages go to the other quorum members (Message.To).
	Messages []*pb.Message
	// Responses answer Submit'ed requests.
	Responses []Response
	// Applied lists what changed the image, in order.
	Applied []Applied
}

// Status is a summary of the node's raft state.
type Status struct {
	ID, Term, Lead, Applied uint64
	State                   raft.StateType
	// Controller is true while this node is the active controller: the
	// leader, caught up with its own term.
	Controller bool
}

func (c *Config) setDefaults() {
	if c.ElectionTicks == 0 {
		c.ElectionTicks = 10
	}
	if c.HeartbeatTicks == 0 {
		c.HeartbeatTicks = 1
	}
	if c.SessionTicks == 0 {
		c.SessionTicks = 18
	}
	if c.SnapshotEvery == 0 {
		c.SnapshotEvery = 1024
	}
	if c.DefaultPartitions == 0 {
		c.DefaultPartitions = 1
	}
	if c.DefaultReplicationFactor == 0 {
		c.DefaultReplicationFactor = 1
	}
	if c.ProducerIDBlock == 0 {
		c.ProducerIDBlock = 1000
	}
	if c.Rand == nil {
		c.Rand = rand.New(rand.NewPCG(c.ID, 0x6b726166))
	}
	if c.Dir == "" {
		c.Dir = DefaultDir
	}
	if c.Logger == nil {
		c.Logger = discardLogger{}
	}
}

// NewNode starts a node: from its stored state if Storage holds one, else
// as a fresh member of Voters.
func NewNode(cfg Config) (*Node, error) {
	cfg.setDefaults()
	n := &Node{cfg: cfg, ms: raft.NewMemoryStorage()}
	fresh := true
	if cfg.Storage != nil {
		d, err := openDisk(cfg.Storage, cfg.Dir)
		if err != nil {
			return nil, fmt.Errorf("cluster: open metadata log: %w", err)
		}
		n.disk = d
		if fresh, err = d.load(n.ms); err != nil {
			return nil, fmt.Errorf("cluster: load metadata log: %w", err)
		}
	}
	if fresh {
		// Every voter starts from the same snapshot at index 1 holding the
		// membership and the empty image (etcd raft's bootstrap pattern).
		snap := &pb.Snapshot{Data: cluster.NewImage().Encode(), Metadata: &pb.SnapshotMetadata{
			Index: new(uint64(1)), Term: new(uint64(1)), ConfState: &pb.ConfState{Voters: cfg.Voters}}}
		if err := n.ms.ApplySnapshot(snap); err != nil {
			return nil, err
		}
		if n.disk != nil {
			if err := n.disk.saveSnapshot(snap, n.ms); err != nil {
				return nil, err
			}
		}
	}
	snap, _ := n.ms.Snapshot()
	im, err := cluster.DecodeImage(snap.GetData())
	if err != nil {
		return nil, err
	}
	im.Index = snap.GetMetadata().GetIndex()
	n.image, n.snapIndex = im, im.Index
	n.confState = snap.GetMetadata().GetConfState()
	rn, err := raft.NewRawNode(&raft.Config{
		ID:            cfg.ID,
		ElectionTick:  cfg.ElectionTicks,
		HeartbeatTick: cfg.HeartbeatTicks,
		Storage:       n.ms,
		Applied:       im.Index,
		MaxSizePerMsg: 1 << 20,
		// Limits, so a lagging follower is caught up in bounded steps.
		MaxInflightMsgs:           64,
		MaxUncommittedEntriesSize: 1 << 26,
		CheckQuorum:               true,
		PreVote:                   true,
		// Only the controller proposes, on the leader itself.
		DisableProposalForwarding: true,
		Logger:                    cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	n.rn = rn
	n.timeout = n.newTimeout()
	return n, nil
}

// newTimeout draws an election timeout. etcd raft draws its own from
// crypto/rand, which would make runs irreproducible, so followers are never
// ticked inside raft: the node keeps the election timer here and calls
// Campaign (and ForgetLeader, to end the leader's lease) itself.
func (n *Node) newTimeout() int {
	return n.cfg.ElectionTicks + n.cfg.Rand.IntN(n.cfg.ElectionTicks)
}

// Tick advances the node's logical clock by one tick.
func (n *Node) Tick() {
	n.now++
	st := n.rn.BasicStatus()
	if st.RaftState == raft.StateLeader {
		// A leader's tick only heartbeats and checks quorum: no randomness.
		n.rn.Tick()
		n.idle = 0
		if n.ctl != nil && n.rn.BasicStatus().RaftState == raft.StateLeader {
			n.ctl.tick()
		}
		return
	}
	n.idle++
	if n.idle >= n.cfg.ElectionTicks && st.Lead != raft.None {
		// The lease is over: vote requests are now considered.
		_ = n.rn.ForgetLeader()
	}
	if n.idle >= n.timeout {
		_ = n.rn.Campaign()
		n.idle, n.timeout = 0, n.newTimeout()
	}
}

// Step hands the node a raft message from another member.
func (n *Node) Step(m *pb.Message) error {
	if m.GetTo() != n.cfg.ID {
		return fmt.Errorf("cluster: node %d got a message for %d", n.cfg.ID, m.GetTo())
	}
	err := n.rn.Step(m)
	switch m.GetType() {
	case pb.MsgApp, pb.MsgHeartbeat, pb.MsgSnap:
		if st := n.rn.BasicStatus(); st.Lead == m.GetFrom() && st.GetTerm() == m.GetTerm() {
			n.idle = 0
		}
	}
	return err
}

// Submit hands the node a controller request (BrokerRegistration,
// BrokerHeartbeat, AlterPartition, CreateTopics, CreatePartitions,
// DeleteTopics, AllocateProducerIDs, UnregisterBroker,
// IncrementalAlterConfigs, AlterConfigs, ElectLeaders,
// AlterClientQuotas). Its response comes out of a
// later Process with the same id: at once if it is refused, or once the
// records it needs are committed. A node that is not the active controller
// answers NOT_CONTROLLER.
func (n *Node) Submit(id uint64, req kmsg.Request) {
	if n.ctl == nil || !n.ctl.active {
		n.respond(id, errorResponse(req, notController))
		return
	}
	n.ctl.handle(id, req)
}

func (n *Node) respond(id uint64, msg kmsg.Response) {
	n.responses = append(n.responses, Response{ID: id, Msg: msg})
}

// ReportUnreachable tells raft that a message to peer could not be sent,
// so the leader stops streaming to it and probes instead.
func (n *Node) ReportUnreachable(peer uint64) { n.rn.ReportUnreachable(peer) }

// Image is the applied metadata. It is the node's own: read it, never
// change it, and do not keep it across Process calls (Clone it to keep).
func (n *Node) Image() *cluster.Image { return n.image }

// ID is the node's id.
func (n *Node) ID() uint64 { return n.cfg.ID }

// Now is the node's tick count.
func (n *Node) Now() int64 { return n.now }

// Status summarises the node's raft state.
func (n *Node) Status() Status {
	st := n.rn.BasicStatus()
	return Status{ID: n.cfg.ID, Term: st.GetTerm(), Lead: st.Lead, Applied: n.image.Index,
		State: st.RaftState, Controller: n.ctl != nil && n.ctl.active}
}

// SinceHeard is, on the active controller, how many ticks ago it last
// heard from broker id (a heartbeat or registration, or its own
// activation: a new controller grants every broker a full session).
func (n *Node) SinceHeard(id int32) (int64, bool) {
	if n.ctl == nil || !n.ctl.active {
		return 0, false
	}
	heard, ok := n.ctl.lastHeard[id]
	return n.now - heard, ok
}

// Close releases the node's log file.
func (n *Node) Close() error {
	if n.disk != nil {
		return n.disk.close()
	}
	return nil
}
