package group

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// Config is what a Coordinator needs from the broker that hosts it.
type Config struct {
	// Partitions is offsets.topic.num.partitions: how many partitions
	// __consumer_offsets has, and so where each group's records go.
	Partitions int32
	// InitialRebalanceDelayMs is group.initial.rebalance.delay.ms: how
	// long the first rebalance of an empty group waits for more members.
	InitialRebalanceDelayMs int32
	// MinSessionTimeoutMs and MaxSessionTimeoutMs bound a classic
	// member's session.timeout.ms (group.min/max.session.timeout.ms).
	MinSessionTimeoutMs, MaxSessionTimeoutMs int32
	// MaxSize is group.max.size, the most members a classic group has.
	MaxSize int32
	// MaxMetadataBytes is offset.metadata.max.bytes.
	MaxMetadataBytes int
	// ConsumerSessionTimeoutMs and ConsumerHeartbeatIntervalMs are the
	// KIP-848 group.consumer.* settings.
	ConsumerSessionTimeoutMs, ConsumerHeartbeatIntervalMs int32
	// ConsumerTimeouts, if set, gives a KIP-848 group's own session
	// timeout and heartbeat interval (its consumer.session.timeout.ms and
	// consumer.heartbeat.interval.ms group configs), asked at each
	// heartbeat; unset, every group has the two above.
	ConsumerTimeouts func(group string) (sessionMs, heartbeatMs int32)
	// Rand makes member ids; the driver seeds it.
	Rand *rand.Rand
	// Log stores records in __consumer_offsets.
	Log Log
	// Topics answers what topics exist, for commits and KIP-848 assignment.
	Topics Topics
	// Share is the broker's share groups (KIP-932), whose membership the
	// coordinator writes and replays (share_records.go); nil: none.
	Share *share.Engine
	// Logf receives a line per rebalance and member change.
	Logf func(format string, args ...any)
}

// Log is the coordinator's storage: the partitions of __consumer_offsets.
type Log interface {
	// Append writes one batch to a partition of __consumer_offsets, as a
	// produce would (the high watermark advances, fetches wake). An error
	// means the write did not happen: the storage failed, or this broker
	// no longer leads the partition. The request is then answered
	// NOT_COORDINATOR (writeFailed).
	Append(partition int32, b record.Batch) error
}

// writeFailed is the answer to a request whose write to
// __consumer_offsets failed: NOT_COORDINATOR, as Kafka's group
// coordinator answers the append errors a failed storage or a lost
// leadership give (KAFKA_STORAGE_ERROR, NOT_LEADER_OR_FOLLOWER:
// CoordinatorOperationExceptionHelper.handleOperationException, and
// GroupMetadataManager before it). The client looks the coordinator up
// again. (Writes that wait for the ISR and fail later are answered by
// the broker, with the rest of that mapping.)
func writeFailed() int16 { return kerr.NotCoordinator.Code }

// Topics looks up the broker's topics.
type Topics interface {
	// Topic returns a topic's id and partition count, or ok=false.
	Topic(name string) (id [16]byte, partitions int32, ok bool)
	// TopicByID returns a topic's name and partition count, or ok=false.
	TopicByID(id [16]byte) (name string, partitions int32, ok bool)
	// Names lists every topic, in any order; regex subscriptions are
	// resolved against it.
	Names() []string
}

// Call is one request as the coordinator sees it: who sent it, and how to
// answer it later when the answer waits (a JoinGroup at the barrier, a
// SyncGroup waiting for its leader).
type Call struct {
	ClientID   string
	ClientHost string
	// Reply delivers a late answer. It is called at most once per Call,
	// and never for a Call whose answer Handle returned.
	Reply func(kmsg.Response)
	// MayDescribe says whether the caller may DESCRIBE a topic; a
	// heartbeat's regex subscriptions resolve to those topics only
	// (regex.go). Nil: every topic.
	MayDescribe func(topic string) bool
}

// Coordinator is the group coordinator of one broker: every group whose
// __consumer_offsets partition this broker leads.
type Coordinator struct {
	cfg    Config
	groups map[string]*Group
	now    int64
	txn    txnOffsets // offsets of open transactions (txn.go)
	// shareWritten is, per share group, what the log holds of its
	// records, key by key (share_records.go).
	shareWritten map[string]map[string][]byte
}

// New returns a coordinator with no groups; Replay then restores them.
func New(cfg Config, now int64) *Coordinator {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.Partitions <= 0 {
		cfg.Partitions = 1
	}
	if cfg.MaxSize <= 0 {
		cfg.MaxSize = 1<<31 - 1
	}
	if cfg.MaxMetadataBytes <= 0 {
		cfg.MaxMetadataBytes = 4096
	}
	if cfg.ConsumerSessionTimeoutMs <= 0 {
		cfg.ConsumerSessionTimeoutMs = 45000
	}
	if cfg.ConsumerHeartbeatIntervalMs <= 0 {
		cfg.ConsumerHeartbeatIntervalMs = 5000
	}
	if cfg.Rand == nil {
		cfg.Rand = rand.New(rand.NewPCG(1, 2))
	}
	return &Coordinator{cfg: cfg, groups: map[string]*Group{}, now: now}
}

// consumerTimeouts are a KIP-848 group's session timeout and heartbeat
// interval.
func (c *Coordinator) consumerTimeouts(group string) (sessionMs, heartbeatMs int32) {
	if c.cfg.ConsumerTimeouts != nil {
		return c.cfg.ConsumerTimeouts(group)
	}
	return c.cfg.ConsumerSessionTimeoutMs, c.cfg.ConsumerHeartbeatIntervalMs
}

// PartitionFor is the __consumer_offsets partition that holds a group.
func (c *Coordinator) PartitionFor(group string) int32 {
	return PartitionFor(group, c.cfg.Partitions)
}

// Handle serves one group request. It returns the answer, or nil when the
// answer comes later through call.Reply. Requests it does not serve get
// nil and no Reply; the broker routes only the group APIs here.
func (c *Coordinator) Handle(now int64, call Call, req kmsg.Request) kmsg.Response {
	c.advance(now)
	switch r := req.(type) {
	case *kmsg.JoinGroupRequest:
		return c.joinGroup(call, r)
	case *kmsg.SyncGroupRequest:
		return c.syncGroup(call, r)
	case *kmsg.HeartbeatRequest:
		return c.heartbeat(r)
	case *kmsg.LeaveGroupRequest:
		return c.leaveGroup(r)
	case *kmsg.OffsetCommitRequest:
		return c.offsetCommit(r)
	case *kmsg.OffsetFetchRequest:
		return c.offsetFetch(r)
	case *kmsg.OffsetDeleteRequest:
		return c.offsetDelete(r)
	case *kmsg.DescribeGroupsRequest:
		return c.describeGroups(r)
	case *kmsg.ListGroupsRequest:
		return c.listGroups(r)
	case *kmsg.DeleteGroupsRequest:
		return c.deleteGroups(r)
	case *kmsg.ConsumerGroupHeartbeatRequest:
		return c.consumerHeartbeat(call, r)
	case *kmsg.ConsumerGroupDescribeRequest:
		return c.consumerDescribe(r)
	}
	return nil
}

func (c *Coordinator) advance(now int64) {
	if now > c.now {
		c.now = now
	}
}

// Tick moves the clock: rebalance barriers, sync barriers and sessions
// whose time has come expire.
func (c *Coordinator) Tick(now int64) {
	c.advance(now)
	for _, id := range c.groupIDs() {
		if g := c.groups[id]; g != nil {
			c.tickClassic(g)
			c.tickConsumer(g)
		}
	}
}

// NextDeadline is the earliest time Tick has work to do; ok is false when
// nothing is timed.
func (c *Coordinator) NextDeadline() (at int64, ok bool) {
	take := func(t int64) {
		if t > 0 && (!ok || t < at) {
			at, ok = t, true
		}
	}
	//purity:unordered takes the earliest deadline
	for _, g := range c.groups {
		g.deadlines(take)
	}
	return at, ok
}

// Groups lists the group ids in order.
func (c *Coordinator) Groups() []string { return c.groupIDs() }

func (c *Coordinator) groupIDs() []string {
	ids := make([]string, 0, len(c.groups))
	for id := range c.groups {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// group returns a group, creating it (empty, classic) when create is set.
func (c *Coordinator) group(id string, create bool) *Group {
	g := c.groups[id]
	if g == nil && create {
		g = newGroup(id, c.PartitionFor(id), c.now)
		c.groups[id] = g
	}
	return g
}

// kv is one record to write.
type kv struct{ key, value []byte }

// write appends records for group g to its partition as one batch.
func (c *Coordinator) write(g *Group, recs []kv) error {
	return c.writeTo(g.partition, g.id, recs)
}

// writeTo appends records for group id to partition p as one batch.
func (c *Coordinator) writeTo(p int32, id string, recs []kv) error {
	if len(recs) == 0 {
		return nil
	}
	bl := record.NewBuilder(record.NewBatchHeader(c.now))
	for _, r := range recs {
		bl.Add(r.key, r.value, 0)
	}
	if err := c.cfg.Log.Append(p, bl.Build()); err != nil {
		c.cfg.Logf("group %s: writing to %s-%d failed: %v", id, Topic, p, err)
		return err
	}
	return nil
}

// newMemberID is Kafka's member id: a prefix (client.id, or
// group.instance.id for static members), a dash and a random UUID.
func (c *Coordinator) newMemberID(prefix string) string {
	var u [16]byte
	binary.BigEndian.PutUint64(u[:8], c.cfg.Rand.Uint64())
	binary.BigEndian.PutUint64(u[8:], c.cfg.Rand.Uint64())
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%s-%x-%x-%x-%x-%x", prefix, u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Replay applies one record of __consumer_offsets partition p, in log
// order, to rebuild the groups at startup. Records that do not decode are
// skipped with a log line, as Kafka's loader skips them.
func (c *Coordinator) Replay(p int32, key, value []byte) {
	if isConsumerRecord(key) {
		c.replayConsumer(p, key, value)
		return
	}
	if isShareRecord(key) {
		c.replayShare(p, key, value)
		return
	}
	e, err := DecodeEntry(key, value)
	if err != nil {
		c.cfg.Logf("replaying %s-%d: %v", Topic, p, err)
		return
	}
	if e.Skipped {
		return
	}
	g := c.group(e.Group, true)
	switch {
	case e.IsOffset && e.OffsetValue == nil:
		delete(g.offsets, topicPartition{e.Topic, e.Partition})
	case e.IsOffset:
		v := e.OffsetValue
		g.offsets[topicPartition{e.Topic, e.Partition}] = offset{v.Offset, v.LeaderEpoch, v.Metadata, v.CommitTimestamp}
	case e.GroupValue == nil:
		*g = *newGroup(g.id, g.partition, c.now).withOffsets(g.offsets)
	default:
		c.restoreClassic(g, e.GroupValue)
	}
	if g.isDeletable() {
		delete(c.groups, g.id)
	}
}

// Unload forgets every group of __consumer_offsets partition p, when this
// broker stops leading it (Kafka's GroupMetadataManager.removeGroupsForPartition):
// calls waiting in a JoinGroup or SyncGroup are answered NOT_COORDINATOR,
// so their members find the new coordinator, which rebuilds the groups
// from its replica of the partition; pending transactional offsets of p
// go too (the new coordinator replays them with their markers).
func (c *Coordinator) Unload(p int32) []string {
	var gone []string
	for _, id := range c.groupIDs() {
		g := c.groups[id]
		if g.partition != p {
			continue
		}
		for _, m := range g.sorted() {
			failWaiting(m, kerr.NotCoordinator.Code)
		}
		delete(c.groups, id)
		gone = append(gone, id)
	}
	//purity:unordered deletes only; order cannot matter
	for pid, byGroup := range c.txn.pending {
		//purity:unordered deletes only; order cannot matter
		for id := range byGroup {
			if c.PartitionFor(id) == p {
				delete(byGroup, id)
			}
		}
		if len(byGroup) == 0 {
			delete(c.txn.pending, pid)
		}
	}
	return append(gone, c.unloadShare(p)...)
}
