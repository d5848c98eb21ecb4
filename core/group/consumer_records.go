package group

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// A KIP-848 group's state lives in __consumer_offsets as Kafka 4.x writes
// it (GroupMetadataManager and its coordinator records): the key's leading
// int16 is the record type, the value starts with its version, 0.
//
//	3 ConsumerGroupMetadata          key group            value epoch
//	5 ConsumerGroupMemberMetadata    key group, member    value instance id, rack, client id and host, subscribed names or regex, rebalance timeout, server assignor
//	6 ConsumerGroupTargetAssignmentMetadata key group     value assignment epoch
//	7 ConsumerGroupTargetAssignmentMember   key group, member value target partitions
//	8 ConsumerGroupCurrentMemberAssignment  key group, member value member epoch, previous epoch, state, assigned and pending-revocation partitions
//
// A classic member's record 5 carries, in tagged field 0, its
// ClassicMemberMetadata: session timeout and supported protocols (name and
// metadata), as Kafka 3.8 and later write it. The fields and their order
// follow ConsumerGroupMemberMetadataValue.json (apache/kafka 4.x:
// SessionTimeoutMs, then SupportedProtocols); that a tagged nullable
// struct carries no presence byte (the tag's absence is null) follows the
// message generator's rules and was not checked against a Kafka broker's
// log. Partitions are named by topic id. Types 4 (partition metadata, gone in
// 4.1) and 16 (resolved regexes) are not written: regexes are resolved
// again when the records are loaded.
//
// Invariants:
//   - after every change a heartbeat or a timeout makes, the records whose
//     value changed are appended, and the keys that no longer exist get
//     tombstones (cg.written is what the log holds, key by key);
//   - replaying the partition's records in log order rebuilds the epoch,
//     target, and every member's subscription, epochs and owned and
//     revoking partitions, so members go on at their epoch after a
//     restart or a coordinator move, without a rebalance. Their sessions
//     start over at load time, as classic members' do.
const (
	consumerGroupType    int16 = 3
	consumerMemberType   int16 = 5
	consumerTargetType   int16 = 6
	consumerTargetMember int16 = 7
	consumerCurrentType  int16 = 8
)

// Member states of record 8 (Kafka's MemberState).
const (
	memberStable               int8 = 0
	memberUnrevokedPartitions  int8 = 1
	memberUnreleasedPartitions int8 = 2
)

func consumerKey(typ int16, group string, member ...string) []byte {
	w := recWriter{}
	w.int16(typ)
	w.str(group)
	for _, m := range member {
		w.str(m)
	}
	return w.b
}

// consumerState renders every record of the group's current state, in
// the order Kafka writes them: members, epoch, targets, target epoch,
// current assignments.
func (c *Coordinator) consumerState(g *Group) []kv {
	cg := g.cg
	ids := sortedKeys(cg.members)
	var recs []kv
	for _, id := range ids {
		m := cg.members[id]
		w := recWriter{}
		w.int16(0)
		w.cnstr(m.instanceID)
		w.cnstr(m.rackID)
		w.cstr(m.clientID)
		w.cstr(m.clientHost)
		names := m.topics
		if m.regex != "" {
			names = nil
		}
		w.uvarint(len(names) + 1)
		for _, t := range names {
			w.cstr(t)
		}
		w.cnstr(m.regex)
		w.int32(m.rebalanceTimeout)
		w.cnstr(m.assignor)
		w.classicTag(m.classic)
		recs = append(recs, kv{consumerKey(consumerMemberType, g.id, id), w.b})
	}
	recs = append(recs, kv{consumerKey(consumerGroupType, g.id), epochValue(cg.epoch)})
	for _, id := range ids {
		w := recWriter{}
		w.int16(0)
		w.idPartitions(c.byTopicID(cg.target[id]))
		w.noTags()
		recs = append(recs, kv{consumerKey(consumerTargetMember, g.id, id), w.b})
	}
	recs = append(recs, kv{consumerKey(consumerTargetType, g.id), epochValue(cg.assignmentEpoch)})
	for _, id := range ids {
		m := cg.members[id]
		st := memberStable
		switch {
		case len(m.revoking) > 0:
			st = memberUnrevokedPartitions
		case len(m.assigned) != len(cg.target[id]):
			st = memberUnreleasedPartitions
		}
		w := recWriter{}
		w.int16(0)
		w.int32(m.epoch)
		w.int32(m.prevEpoch)
		w.int8(st)
		w.idPartitions(c.byTopicID(sortedSet(m.assigned)))
		w.idPartitions(c.byTopicID(sortedSet(m.revoking)))
		w.noTags()
		recs = append(recs, kv{consumerKey(consumerCurrentType, g.id, id), w.b})
	}
	return recs
}

// epochValue is the value of an epoch's record (3 and 6, and share
// groups' 12): version 0 and the epoch.
func epochValue(epoch int32) []byte {
	w := recWriter{}
	w.int16(0)
	w.int32(epoch)
	w.noTags()
	return w.b
}

func sortedSet(s map[assign.TopicPartition]bool) []assign.TopicPartition {
	tps := make([]assign.TopicPartition, 0, len(s))
	for tp := range s {
		tps = append(tps, tp)
	}
	return assign.SortPartitions(tps)
}

// byTopicID groups partitions by topic id; a topic that no longer exists
// is left out.
func (c *Coordinator) byTopicID(tps []assign.TopicPartition) []idPartitions {
	tps = assign.SortPartitions(append([]assign.TopicPartition(nil), tps...))
	var out []idPartitions
	for _, tp := range tps {
		id, _, ok := c.cfg.Topics.Topic(tp.Topic)
		if !ok {
			continue
		}
		if len(out) == 0 || out[len(out)-1].id != id {
			out = append(out, idPartitions{id: id})
		}
		out[len(out)-1].parts = append(out[len(out)-1].parts, tp.Partition)
	}
	return out
}

// storeConsumer appends what changed in the group's records since the last
// write, and tombstones for the keys gone. A failed write is logged and
// retried at the group's next change or heartbeat, as the in-memory state
// has moved on (Kafka would fail the heartbeat; its members retry too).
func (c *Coordinator) storeConsumer(g *Group) {
	cg := g.cg
	if cg == nil {
		return
	}
	recs := changed(cg.written, c.consumerState(g))
	if len(recs) == 0 || c.write(g, recs) != nil {
		return
	}
	for _, r := range recs {
		noteWritten(&cg.written, r.key, r.value)
	}
}

// changed lists the records of state whose value differs from what the
// log holds (written, key by key), after tombstones for the keys written
// and no longer in state.
func changed(written map[string][]byte, state []kv) []kv {
	live := map[string]bool{}
	var recs []kv
	for _, r := range state {
		live[string(r.key)] = true
		if old, ok := written[string(r.key)]; !ok || !bytes.Equal(old, r.value) {
			recs = append(recs, r)
		}
	}
	var gone []kv
	for _, k := range sortedKeys(written) {
		if !live[k] {
			gone = append(gone, kv{[]byte(k), nil})
		}
	}
	return append(gone, recs...)
}

// noteWritten records that the log now holds value at key (nil: deleted).
func noteWritten(written *map[string][]byte, key, value []byte) {
	if *written == nil {
		*written = map[string][]byte{}
	}
	if value == nil {
		delete(*written, string(key))
	} else {
		(*written)[string(key)] = value
	}
}

// consumerTombstones deletes every record of a KIP-848 group.
func consumerTombstones(g *Group) []kv {
	if g.cg == nil {
		return nil
	}
	var recs []kv
	for _, k := range sortedKeys(g.cg.written) {
		recs = append(recs, kv{[]byte(k), nil})
	}
	return recs
}

// isConsumerRecord reports a key of the record types above.
func isConsumerRecord(key []byte) bool {
	if len(key) < 2 {
		return false
	}
	switch int16(binary.BigEndian.Uint16(key)) {
	case consumerGroupType, consumerMemberType, consumerTargetType, consumerTargetMember, consumerCurrentType:
		return true
	}
	return false
}

// readKey reads a record's key: its type, group and, for the member
// types given, a member id, which may not be empty.
func readKey(key []byte, memberTypes ...int16) (typ int16, group, member string, err error) {
	kr := recReader{b: key}
	typ, group = kr.int16(), kr.str()
	if slices.Contains(memberTypes, typ) {
		if member = kr.str(); member == "" && kr.err == nil {
			kr.err = errNoMember
		}
	}
	return typ, group, member, kr.err
}

// replayConsumer applies one KIP-848 record at load.
func (c *Coordinator) replayConsumer(p int32, key, value []byte) {
	typ, groupID, memberID, err := readKey(key, consumerMemberType, consumerTargetMember, consumerCurrentType)
	if err != nil {
		c.cfg.Logf("replaying %s-%d: record type %d: key: %v", Topic, p, typ, err)
		return
	}
	g := c.groups[groupID]
	if value == nil && (g == nil || g.cg == nil) {
		return // a deleted group's other tombstones
	}
	g = c.group(groupID, true)
	if g.cg == nil {
		g.cg = &consumerGroup{members: map[string]*consumerMember{}, owner: map[assign.TopicPartition]string{}, assignor: "uniform"}
	}
	g.typ = Consumer
	cg := g.cg
	noteWritten(&cg.written, key, value)
	r := recReader{b: value}
	if value != nil && r.int16() != 0 {
		c.cfg.Logf("replaying %s-%d: record type %d: value version not 0", Topic, p, typ)
		return
	}
	m := cg.members[memberID]
	if memberID != "" && m == nil && value != nil {
		m = &consumerMember{id: memberID, assigned: map[assign.TopicPartition]bool{}, revoking: map[assign.TopicPartition]bool{}}
		cg.members[memberID] = m
	}
	switch {
	case typ == consumerGroupType && value == nil: // the group is deleted
		g.cg, g.typ = nil, Classic
		g.setState(Empty, c.now)
		if g.isDeletable() {
			delete(c.groups, g.id)
		}
		return
	case typ == consumerGroupType:
		cg.epoch = r.int32()
	case typ == consumerTargetType && value != nil:
		cg.assignmentEpoch = r.int32()
	case typ == consumerMemberType && value == nil:
		if m != nil {
			c.release(cg, m)
			delete(cg.members, memberID)
		}
	case typ == consumerMemberType:
		m.instanceID, m.rackID, m.clientID, m.clientHost = r.cstr(), r.cstr(), r.cstr(), r.cstr()
		m.topics = []string{}
		for range r.alen() {
			m.topics = append(m.topics, r.cstr())
		}
		m.regex = r.cstr()
		m.rebalanceTimeout, m.assignor = r.int32(), r.cstr()
		m.classic = r.classicTag()
		if m.regex != "" {
			m.topics = matchTopics(m.regex, c.cfg.Topics.Names(), nil) // the next heartbeat resolves it as its member may see it
		}
		if m.assignor != "" {
			cg.assignor = m.assignor
		}
		session, _ := c.consumerTimeouts(groupID)
		m.deadline = c.now + int64(session)
		if m.classic != nil {
			m.deadline = c.now + int64(m.classic.sessionTimeout)
		}
	case typ == consumerTargetMember && value == nil:
		delete(cg.target, memberID)
	case typ == consumerTargetMember:
		if cg.target == nil {
			cg.target = assign.Assignment{}
		}
		cg.target[memberID] = c.byName(r.idPartitions())
	case typ == consumerCurrentType && value == nil:
		if m != nil {
			c.release(cg, m)
		}
	case typ == consumerCurrentType:
		m.epoch, m.prevEpoch = r.int32(), r.int32()
		r.int8() // the state is derived from the partitions
		c.release(cg, m)
		for _, tp := range c.byName(r.idPartitions()) {
			m.assigned[tp], cg.owner[tp] = true, m.id
		}
		for _, tp := range c.byName(r.idPartitions()) {
			m.revoking[tp], cg.owner[tp] = true, m.id
		}
		if len(m.revoking) > 0 {
			m.rebalanceDeadline = c.now + int64(max(m.rebalanceTimeout, 1))
		}
	}
	if r.err != nil {
		c.cfg.Logf("replaying %s-%d: record type %d of group %s: %v", Topic, p, typ, groupID, fmt.Errorf("%w: %v", ErrBadRecord, r.err))
	}
	cg.topicsSig = c.topicsSig(cg)
	c.updateConsumerState(g)
}

// byName names the partitions of existing topics.
func (c *Coordinator) byName(tps []idPartitions) []assign.TopicPartition {
	var out []assign.TopicPartition
	for _, tp := range tps {
		name, _, ok := c.cfg.Topics.TopicByID(tp.id)
		if !ok {
			continue
		}
		for _, p := range tp.parts {
			out = append(out, assign.TopicPartition{Topic: name, Partition: p})
		}
	}
	return out
}
