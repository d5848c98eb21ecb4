package share

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
)

// Topics looks up the broker's topics (the group coordinator's interface).
type Topics interface {
	Topic(name string) (id [16]byte, partitions int32, ok bool)
	TopicByID(id [16]byte) (name string, partitions int32, ok bool)
}

// Config is what an Engine needs from its broker.
type Config struct {
	Limits
	// SessionTimeoutMs and HeartbeatIntervalMs are
	// group.share.session.timeout.ms and group.share.heartbeat.interval.ms.
	SessionTimeoutMs, HeartbeatIntervalMs int32
	// Timeouts, if set, gives a group's own session timeout and heartbeat
	// interval (its share.session.timeout.ms and share.heartbeat.interval.ms
	// group configs), asked at each heartbeat; unset, every group has
	// SessionTimeoutMs and HeartbeatIntervalMs.
	Timeouts func(group string) (sessionMs, heartbeatMs int32)
	// MaxSessions is group.share.max.share.sessions.
	MaxSessions int
	Topics      Topics
	Logf        func(format string, args ...any)
}

// Engine holds the share groups of a broker, the share partitions of the
// partitions it leads, and the share sessions of its clients.
type Engine struct {
	cfg      Config
	now      int64
	groups   map[string]*Group
	parts    map[Key]*Partition
	sessions map[sessionKey]*session
	dirty    map[Key]bool // share partitions changed since TakeDirty
}

// New returns an empty engine.
func New(cfg Config, now int64) *Engine {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	return &Engine{cfg: cfg, now: now, groups: map[string]*Group{}, parts: map[Key]*Partition{},
		sessions: map[sessionKey]*session{}, dirty: map[Key]bool{}}
}

func (e *Engine) advance(now int64) { e.now = max(e.now, now) }

// timeouts are a group's session timeout and heartbeat interval.
func (e *Engine) timeouts(group string) (sessionMs, heartbeatMs int32) {
	if e.cfg.Timeouts != nil {
		return e.cfg.Timeouts(group)
	}
	return e.cfg.SessionTimeoutMs, e.cfg.HeartbeatIntervalMs
}

// Limits are the engine's share-partition limits.
func (e *Engine) Limits() Limits { return e.cfg.Limits }

// Group returns a share group, or nil.
func (e *Engine) Group(id string) *Group { return e.groups[id] }

// Groups lists the share groups: those with members and those with share
// partitions (an empty group whose state survived), in id order.
func (e *Engine) Groups() []string {
	ids := map[string]bool{}
	//purity:unordered fills a set; sorted below
	for id := range e.groups {
		ids[id] = true
	}
	//purity:unordered fills a set; sorted below
	for k := range e.parts {
		ids[k.Group] = true
	}
	return slices.Sorted(maps.Keys(ids))
}

// Partitions lists the share partitions of a group in topic id and
// partition order.
func (e *Engine) Partitions(group string) []Key {
	var ks []Key
	for k := range e.parts {
		if k.Group == group {
			ks = append(ks, k)
		}
	}
	SortKeys(ks)
	return ks
}

// Partition returns a share partition, or nil.
func (e *Engine) Partition(k Key) *Partition { return e.parts[k] }

// Restore sets a share partition as its share coordinator keeps it; nil
// forgets it (it is read again when next served).
func (e *Engine) Restore(k Key, p *Partition) {
	if p == nil {
		delete(e.parts, k)
		return
	}
	e.parts[k] = p
}

// Unload forgets the share partitions of a topic partition whose
// leadership left: the share coordinator keeps their state, and the next
// leader reads it.
func (e *Engine) Unload(topic [16]byte, partition int32) {
	//purity:unordered deletes only; order cannot matter
	for k := range e.parts {
		if k.TopicID == topic && k.Partition == partition {
			delete(e.parts, k)
			delete(e.dirty, k)
		}
	}
}

// Touch marks a share partition changed (its snapshot is to be written).
func (e *Engine) Touch(k Key) { e.dirty[k] = true }

// TakeDirty returns the share partitions changed since the last call, in
// order; one forgotten since (Restore nil) has no partition any more.
func (e *Engine) TakeDirty() []Key {
	ks := keysOf(e.dirty)
	clear(e.dirty)
	return ks
}

// Ack applies a member's acknowledgements to a share partition.
func (e *Engine) Ack(k Key, member string, batches []AckBatch, renewUntil int64) int16 {
	p := e.parts[k]
	if p == nil {
		return kerr.InvalidRecordState.Code
	}
	code := p.Ack(member, batches, e.cfg.Limits, renewUntil)
	if code == 0 {
		e.dirty[k] = true
	}
	return code
}

// Tick expires member sessions (their locks end) and record locks.
func (e *Engine) Tick(now int64) {
	e.advance(now)
	for _, id := range slices.Sorted(maps.Keys(e.groups)) {
		g := e.groups[id]
		for _, m := range g.Members() {
			if m.deadline <= e.now {
				e.removeMember(g, m, "session timed out")
			}
		}
	}
	for _, k := range keysOf(e.parts) {
		for _, r := range e.parts[k].Expire(e.now, e.cfg.Limits) {
			e.dirty[k] = true
			name, _, _ := e.cfg.Topics.TopicByID(k.TopicID)
			e.cfg.Logf("share group %s: %s-%d offset %d: the lock of %s expired, %s (delivery %d)", k.Group, name, k.Partition, r.Offset, r.Owner, r.State, r.Count)
		}
	}
}

// NextDeadline is the earliest member session or record lock to expire.
func (e *Engine) NextDeadline() (at int64, ok bool) {
	take := func(t int64) {
		if !ok || t < at {
			at, ok = t, true
		}
	}
	//purity:unordered takes the earliest deadline
	for _, g := range e.groups {
		//purity:unordered takes the earliest deadline
		for _, m := range g.members {
			take(m.deadline)
		}
	}
	//purity:unordered takes the earliest deadline
	for _, p := range e.parts {
		if t, tok := p.NextDeadline(); tok {
			take(t)
		}
	}
	return at, ok
}

// removeMember drops a member: the group epoch advances, its sessions
// close and its locks end.
func (e *Engine) removeMember(g *Group, m *Member, why string) {
	delete(g.members, m.ID)
	g.Epoch++
	e.assign(g)
	e.cfg.Logf("share group %s: member %s removed (%s), group epoch %d", g.ID, m.ID, why, g.Epoch)
	e.closeSession(sessionKey{g.ID, m.ID})
	//purity:unordered each partition releases the member on its own
	for k, p := range e.parts {
		if k.Group == g.ID && p.ReleaseMember(m.ID, e.cfg.Limits) {
			e.dirty[k] = true
		}
	}
	if len(g.members) == 0 && len(g.Assigned) == 0 && len(e.Partitions(g.ID)) == 0 {
		delete(e.groups, g.ID)
	}
}

// Forget deletes an empty share group and the share partitions led here
// (DeleteGroups; their state is deleted through the share coordinator);
// it reports false for a group with members.
func (e *Engine) Forget(group string) bool {
	if g := e.groups[group]; g != nil && len(g.members) > 0 {
		return false
	}
	delete(e.groups, group)
	//purity:unordered deletes only; order cannot matter
	for k := range e.parts {
		if k.Group == group {
			delete(e.parts, k)
			delete(e.dirty, k)
		}
	}
	return true
}

func compareKeys(a, b Key) int {
	if c := strings.Compare(a.Group, b.Group); c != 0 {
		return c
	}
	if c := bytes.Compare(a.TopicID[:], b.TopicID[:]); c != 0 {
		return c
	}
	return cmp.Compare(a.Partition, b.Partition)
}

// SortKeys sorts share partition keys with sort.Slice: one shared sort
// routine rather than a generic instantiation per key type, which the
// wasm bundle pays for.
func SortKeys(ks []Key) {
	sort.Slice(ks, func(i, j int) bool { return compareKeys(ks[i], ks[j]) < 0 })
}

// keysOf lists a map's keys in order.
func keysOf[V any](m map[Key]V) []Key {
	ks := make([]Key, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	SortKeys(ks)
	return ks
}

// LoadGroup returns a share group, creating it empty: its group
// coordinator rebuilds it so from the records it wrote in
// __consumer_offsets (core/group/share_records.go) after a restart or a
// move. The assignment is recomputed at the next heartbeat, at the same
// epoch (the topics are what they were) and with the same result.
func (e *Engine) LoadGroup(id string) *Group {
	g := e.groups[id]
	if g == nil {
		g = &Group{ID: id, members: map[string]*Member{}, Assigned: map[TP]bool{}}
		e.groups[id] = g
	}
	return g
}

// LoadMember returns a member of a loaded group, creating it; its session
// starts over now, as a KIP-848 member's does at load.
func (e *Engine) LoadMember(g *Group, id string) *Member {
	m := g.members[id]
	if m == nil {
		session, _ := e.timeouts(g.ID)
		m = &Member{ID: id, Assigned: map[string][]int32{}, deadline: e.now + int64(session)}
		g.members[id] = m
	}
	return m
}

// DropMember forgets a member without moving the group epoch (its
// tombstone was replayed: the epoch's own record says where it went).
func (e *Engine) DropMember(g *Group, id string) { delete(g.members, id) }

// Drop forgets a share group's membership, when its group coordinator's
// record of it is deleted or its __consumer_offsets partition moves away;
// the share partitions led here stay (their state is the share
// coordinator's).
func (e *Engine) Drop(id string) {
	delete(e.groups, id)
	//purity:unordered each session releases only its own member's locks
	for k := range e.sessions {
		if k.group == id {
			e.closeSession(k)
		}
	}
}
