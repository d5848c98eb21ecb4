package group

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// State is a group's state, named as Kafka's ListGroups and DescribeGroups
// report it. Classic groups use Empty, PreparingRebalance,
// CompletingRebalance, Stable and Dead; KIP-848 consumer groups use Empty,
// Assigning, Reconciling, Stable and Dead.
type State string

const (
	Empty               State = "Empty"
	PreparingRebalance  State = "PreparingRebalance"
	CompletingRebalance State = "CompletingRebalance"
	Stable              State = "Stable"
	Dead                State = "Dead"
	Assigning           State = "Assigning"
	Reconciling         State = "Reconciling"
)

// Type is the group protocol (KIP-848's group.type).
type Type string

const (
	Classic  Type = "classic"
	Consumer Type = "consumer"
)

type topicPartition struct {
	topic     string
	partition int32
}

// offset is one committed offset.
type offset struct {
	offset      int64
	leaderEpoch int32
	metadata    string
	commitTime  int64
}

// Group is one consumer group: its members and rebalance state (classic or
// KIP-848), and its committed offsets.
type Group struct {
	id        string
	partition int32 // of __consumer_offsets
	typ       Type
	state     State
	stateTime int64

	// Classic protocol.
	protocolType string
	protocol     string
	generation   int32
	leader       string
	members      map[string]*member
	pending      map[string]int64  // KIP-394: member ids handed out, awaiting rejoin → expiry
	static       map[string]string // group.instance.id → member id (KIP-345)
	seq          uint64            // join order, for the leader and for output
	// PreparingRebalance: when the join barrier gives up on members
	// that have not rejoined. The initial delay (group.initial.
	// rebalance.delay.ms) holds the barrier even when all have joined.
	joinDeadline   int64
	initialDelay   bool
	delayRemaining int64
	newMemberAdded bool
	// Members that got a JoinGroup answer but have not sent SyncGroup;
	// they are removed at syncDeadline.
	pendingSync  map[string]bool
	syncDeadline int64

	offsets map[topicPartition]offset

	cg *consumerGroup // KIP-848 state, when typ == Consumer
}

// member is a classic group member.
type member struct {
	id, instanceID       string
	clientID, clientHost string
	seq                  uint64
	sessionTimeout       int32
	rebalanceTimeout     int32
	protocols            []kmsg.JoinGroupRequestProtocol
	assignment           []byte
	join                 *waiting // a JoinGroup waiting at the barrier
	sync                 *waiting // a SyncGroup waiting for the leader
	deadline             int64    // session expiry, while not waiting
}

type waiting struct {
	call Call
	req  kmsg.Request
}

func newGroup(id string, partition int32, now int64) *Group {
	return &Group{
		id: id, partition: partition, typ: Classic, state: Empty, stateTime: now,
		members: map[string]*member{}, pending: map[string]int64{}, static: map[string]string{},
		offsets: map[topicPartition]offset{},
	}
}

func (g *Group) withOffsets(o map[topicPartition]offset) *Group {
	g.offsets = o
	return g
}

// ID is the group id.
func (g *Group) ID() string { return g.id }

// Partition is the __consumer_offsets partition holding the group.
func (g *Group) Partition() int32 { return g.partition }

// State is the group's state.
func (g *Group) State() State { return g.state }

// Generation is the classic group generation, or the KIP-848 group epoch.
func (g *Group) Generation() int32 {
	if g.typ == Consumer && g.cg != nil {
		return g.cg.epoch
	}
	return g.generation
}

// Leader is the member id of the classic group's leader, the member
// that ran the assignor; "" when the group has none.
func (g *Group) Leader() string { return g.leader }

// Group returns a group by id, or nil.
func (c *Coordinator) Group(id string) *Group { return c.groups[id] }

func (g *Group) setState(s State, now int64) {
	if g.state != s {
		g.state, g.stateTime = s, now
	}
}

// isDeletable reports a group that holds nothing worth keeping: never
// rebalanced, no members, no offsets.
func (g *Group) isDeletable() bool {
	return g.state == Empty && len(g.members) == 0 && len(g.pending) == 0 && len(g.offsets) == 0 &&
		g.generation == 0 && g.protocolType == "" && (g.cg == nil || len(g.cg.members) == 0 && g.cg.epoch == 0)
}

// sorted lists the classic members in join order.
func (g *Group) sorted() []*member {
	ms := make([]*member, 0, len(g.members))
	for _, m := range g.members {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].seq < ms[j].seq })
	return ms
}

func (g *Group) deadlines(take func(int64)) {
	if g.state == PreparingRebalance {
		take(g.joinDeadline)
	}
	if len(g.pendingSync) > 0 {
		take(g.syncDeadline)
	}
	//purity:unordered takes the earliest deadline
	for _, at := range g.pending {
		take(at)
	}
	//purity:unordered takes the earliest deadline
	for _, m := range g.members {
		if m.join == nil && m.sync == nil {
			take(m.deadline)
		}
	}
	if g.cg != nil {
		//purity:unordered takes the earliest deadline
		for _, m := range g.cg.members {
			take(m.deadline)
			take(m.rebalanceDeadline)
		}
	}
}

// maxRebalanceTimeout is the largest rebalance.timeout.ms of the members,
// which bounds the join barrier.
func (g *Group) maxRebalanceTimeout() int64 {
	var t int32
	//purity:unordered takes the largest timeout
	for _, m := range g.members {
		t = max(t, m.rebalanceTimeout)
	}
	return int64(t)
}

// metadataFor returns a member's metadata for the named protocol.
func (m *member) metadataFor(protocol string) []byte {
	for _, p := range m.protocols {
		if p.Name == protocol {
			return p.Metadata
		}
	}
	return nil
}

// restoreClassic rebuilds a classic group from its metadata record. The
// restored members' sessions start over now, as Kafka's loader schedules
// their heartbeats anew.
func (c *Coordinator) restoreClassic(g *Group, v *kmsg.GroupMetadataValue) {
	offsets := g.offsets
	*g = *newGroup(g.id, g.partition, c.now)
	g.offsets = offsets
	g.protocolType, g.generation = v.ProtocolType, v.Generation
	if v.Protocol != nil {
		g.protocol = *v.Protocol
	}
	if v.Leader != nil {
		g.leader = *v.Leader
	}
	for _, vm := range v.Members {
		g.seq++
		m := &member{
			id: vm.MemberID, clientID: vm.ClientID, clientHost: vm.ClientHost, seq: g.seq,
			sessionTimeout: vm.SessionTimeoutMillis, rebalanceTimeout: vm.RebalanceTimeoutMillis,
			protocols:  []kmsg.JoinGroupRequestProtocol{{Name: g.protocol, Metadata: vm.Subscription}},
			assignment: vm.Assignment,
			deadline:   c.now + int64(vm.SessionTimeoutMillis),
		}
		if vm.InstanceID != nil {
			m.instanceID = *vm.InstanceID
			g.static[m.instanceID] = m.id
		}
		g.members[m.id] = m
	}
	if len(g.members) > 0 {
		g.setState(Stable, c.now)
	}
}

// metadataValue is the group's metadata record value.
func (c *Coordinator) metadataValue(g *Group) *kmsg.GroupMetadataValue {
	v := kmsg.NewGroupMetadataValue()
	v.ProtocolType, v.Generation, v.CurrentStateTimestamp = g.protocolType, g.generation, c.now
	if g.protocol != "" {
		p := g.protocol
		v.Protocol = &p
	}
	if g.leader != "" {
		l := g.leader
		v.Leader = &l
	}
	for _, m := range g.sorted() {
		vm := kmsg.NewGroupMetadataValueMember()
		vm.MemberID, vm.ClientID, vm.ClientHost = m.id, m.clientID, m.clientHost
		if m.instanceID != "" {
			inst := m.instanceID
			vm.InstanceID = &inst
		}
		vm.RebalanceTimeoutMillis, vm.SessionTimeoutMillis = m.rebalanceTimeout, m.sessionTimeout
		vm.Subscription = m.metadataFor(g.protocol)
		vm.Assignment = m.assignment
		v.Members = append(v.Members, vm)
	}
	return &v
}

// storeGroup writes the group's metadata record.
func (c *Coordinator) storeGroup(g *Group) error {
	return c.write(g, []kv{{EncodeGroupKey(g.id), EncodeGroupValue(c.metadataValue(g))}})
}
