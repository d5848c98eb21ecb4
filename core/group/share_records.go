package group

import (
	"encoding/binary"

	"github.com/gregor-kafka/gregor/core/group/assign"
	"github.com/gregor-kafka/gregor/core/share"
)

// A share group's membership (KIP-932) lives in __consumer_offsets as
// Kafka 4.x's group coordinator writes it (ShareGroup*Key/Value.json),
// with the KIP-848 records' codec (consumer_codec.go): the key's leading
// int16 is the record type, the value starts with its version, 0.
//
//	10 ShareGroupMemberMetadata          key group, member  value rack, client id and host, subscribed topic names
//	11 ShareGroupMetadata                key group          value epoch, metadata hash (written 0: Gregor recomputes the assignment at load)
//	12 ShareGroupTargetAssignmentMetadata key group         value assignment epoch
//	13 ShareGroupTargetAssignmentMember  key group, member  value target partitions
//	14 ShareGroupCurrentMemberAssignment key group, member  value member epoch, previous epoch, state, assigned partitions
//	15 ShareGroupStatePartitionMetadata  key group          value initializing, initialized and deleting topics
//
// A share group has no revocation, so a member's target (13) is its
// current assignment (14), and only 14 is read back. Record 15 lists as
// initialized every share partition the group was ever assigned
// (share.Group.Assigned), with no create timestamp (0), and nothing
// initializing or deleting: Gregor initializes a share partition when it
// is first served.
//
// Invariants:
//   - after every change (a heartbeat, a session timeout, DeleteGroups,
//     DeleteShareGroupOffsets) StoreShare appends the records whose value
//     changed and tombstones the keys that no longer exist, all of a
//     deleted group's (c.shareWritten is what the log holds, key by key);
//   - replaying a partition's records in log order rebuilds every share
//     group of it that was not deleted, empty ones too, with its epochs,
//     members' epochs and assignment and its initialized partitions, so
//     a restarted or new coordinator lists, describes and deletes it, and
//     its members go on at their epoch.
const (
	shareMemberType   int16 = 10
	shareGroupType    int16 = 11
	shareTargetType   int16 = 12
	shareTargetMember int16 = 13
	shareCurrentType  int16 = 14
	shareStateType    int16 = 15
)

// shareState renders every record of a share group, in the order Kafka
// writes them: members, epoch, state partitions, targets, target epoch,
// current assignments.
func (c *Coordinator) shareState(g *share.Group) []kv {
	ms := g.Members()
	var recs []kv
	for _, m := range ms {
		w := recWriter{}
		w.int16(0)
		w.cnstr(m.Rack)
		w.cstr(m.ClientID)
		w.cstr(m.ClientHost)
		w.uvarint(len(m.Topics) + 1)
		for _, t := range m.Topics {
			w.cstr(t)
		}
		w.noTags()
		recs = append(recs, kv{consumerKey(shareMemberType, g.ID, m.ID), w.b})
	}
	w := recWriter{}
	w.int16(0)
	w.int32(g.Epoch)
	w.int64(0)
	w.noTags()
	recs = append(recs, kv{consumerKey(shareGroupType, g.ID), w.b})
	recs = append(recs, kv{consumerKey(shareStateType, g.ID), c.shareStateValue(g)})
	assigned := make([][]idPartitions, len(ms))
	for i, m := range ms {
		var tps []assign.TopicPartition
		//purity:unordered byTopicID sorts what it collects
		for t, ps := range m.Assigned {
			for _, p := range ps {
				tps = append(tps, assign.TopicPartition{Topic: t, Partition: p})
			}
		}
		assigned[i] = c.byTopicID(tps)
		w := recWriter{}
		w.int16(0)
		w.idPartitions(assigned[i])
		w.noTags()
		recs = append(recs, kv{consumerKey(shareTargetMember, g.ID, m.ID), w.b})
	}
	recs = append(recs, kv{consumerKey(shareTargetType, g.ID), epochValue(g.AssignmentEpoch)})
	for i, m := range ms {
		w := recWriter{}
		w.int16(0)
		w.int32(m.Epoch)
		w.int32(m.PrevEpoch)
		w.int8(memberStable)
		w.idPartitions(assigned[i])
		w.noTags()
		recs = append(recs, kv{consumerKey(shareCurrentType, g.ID, m.ID), w.b})
	}
	return recs
}

// shareStateValue is record 15's value: the initialized partitions by
// topic (id, name, partitions, create timestamp); a topic deleted since
// is left out.
func (c *Coordinator) shareStateValue(g *share.Group) []byte {
	var tps []assign.TopicPartition
	//purity:unordered byTopicID sorts what it collects
	for tp := range g.Assigned {
		if name, _, ok := c.cfg.Topics.TopicByID(tp.TopicID); ok {
			tps = append(tps, assign.TopicPartition{Topic: name, Partition: tp.Partition})
		}
	}
	w := recWriter{}
	w.int16(0)
	w.uvarint(1) // no initializing topics
	topics := c.byTopicID(tps)
	w.uvarint(len(topics) + 1)
	for _, tp := range topics {
		name, _, _ := c.cfg.Topics.TopicByID(tp.id)
		w.uuid(tp.id)
		w.cstr(name)
		w.uvarint(len(tp.parts) + 1)
		for _, p := range tp.parts {
			w.int32(p)
		}
		w.int64(0)
		w.noTags()
	}
	w.uvarint(1) // no deleting topics
	w.noTags()
	return w.b
}

// StoreShare writes what changed in the share groups this coordinator
// leads the partitions of since the last call: a group the engine no
// longer has gets tombstones. A failed write is logged and retried at
// the next call.
func (c *Coordinator) StoreShare(leads func(group string) bool) {
	e := c.cfg.Share
	if e == nil {
		return
	}
	ids := map[string]bool{}
	//purity:unordered fills a set; sorted below
	for id := range c.shareWritten {
		ids[id] = true
	}
	for _, id := range e.Groups() {
		if e.Group(id) != nil && leads(id) {
			ids[id] = true
		}
	}
	for _, id := range sortedKeys(ids) {
		var state []kv
		if g := e.Group(id); g != nil {
			state = c.shareState(g)
		}
		written := c.shareWritten[id]
		recs := changed(written, state)
		if len(recs) == 0 || c.writeTo(c.PartitionFor(id), id, recs) != nil {
			continue
		}
		for _, r := range recs {
			noteWritten(&written, r.key, r.value)
		}
		c.setShareWritten(id, written)
	}
}

func (c *Coordinator) setShareWritten(id string, written map[string][]byte) {
	if len(written) == 0 {
		delete(c.shareWritten, id)
		return
	}
	if c.shareWritten == nil {
		c.shareWritten = map[string]map[string][]byte{}
	}
	c.shareWritten[id] = written
}

// unloadShare forgets the share groups of partition p.
func (c *Coordinator) unloadShare(p int32) []string {
	var gone []string
	for _, id := range sortedKeys(c.shareWritten) {
		if c.PartitionFor(id) == p {
			delete(c.shareWritten, id)
			c.cfg.Share.Drop(id)
			gone = append(gone, id)
		}
	}
	return gone
}

// isShareRecord reports a key of the record types above.
func isShareRecord(key []byte) bool {
	if len(key) < 2 {
		return false
	}
	t := int16(binary.BigEndian.Uint16(key))
	return t >= shareMemberType && t <= shareStateType
}

// replayShare applies one share group record at load.
func (c *Coordinator) replayShare(p int32, key, value []byte) {
	e := c.cfg.Share
	typ, id, memberID, err := readKey(key, shareMemberType, shareTargetMember, shareCurrentType)
	if err != nil {
		c.cfg.Logf("replaying %s-%d: share record type %d: key: %v", Topic, p, typ, err)
		return
	}
	if e == nil {
		return
	}
	written := c.shareWritten[id]
	if value == nil && written == nil {
		return // a deleted group's other tombstones
	}
	noteWritten(&written, key, value)
	c.setShareWritten(id, written)
	r := recReader{b: value}
	if value != nil && r.int16() != 0 {
		c.cfg.Logf("replaying %s-%d: share record type %d: value version not 0", Topic, p, typ)
		return
	}
	g := e.LoadGroup(id)
	switch {
	case typ == shareGroupType && value == nil:
		e.Drop(id)
		delete(c.shareWritten, id)
	case typ == shareGroupType:
		g.Epoch = r.int32()
	case typ == shareTargetType && value != nil:
		g.AssignmentEpoch = r.int32()
	case typ == shareStateType:
		clear(g.Assigned)
		r.shareTopics(nil) // initializing: not yet served, so not listed
		r.shareTopics(g.Assigned)
	case typ == shareMemberType && value == nil:
		e.DropMember(g, memberID)
	case typ == shareMemberType:
		m := e.LoadMember(g, memberID)
		m.Rack, m.ClientID, m.ClientHost = r.cstr(), r.cstr(), r.cstr()
		m.Topics = []string{}
		for range r.alen() {
			m.Topics = append(m.Topics, r.cstr())
		}
	case typ == shareCurrentType && value != nil:
		m := e.LoadMember(g, memberID)
		m.Epoch, m.PrevEpoch = r.int32(), r.int32()
		r.int8() // always stable
		m.Assigned = map[string][]int32{}
		for _, tp := range c.byName(r.idPartitions()) {
			m.Assigned[tp.Topic] = append(m.Assigned[tp.Topic], tp.Partition)
		}
	}
	if r.err != nil {
		c.cfg.Logf("replaying %s-%d: share record type %d of group %s: %v", Topic, p, typ, id, r.err)
	}
}

// shareTopics reads record 15's TopicPartitionsInfo array into into (nil:
// skipped).
func (r *recReader) shareTopics(into map[share.TP]bool) {
	for range r.alen() {
		id := r.uuid()
		r.cstr() // the name: the id is what counts
		for range r.alen() {
			p := r.int32()
			if into != nil {
				into[share.TP{TopicID: id, Partition: p}] = true
			}
		}
		r.int64() // create timestamp
		r.tags()
		if r.err != nil {
			return
		}
	}
}
