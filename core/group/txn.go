package group

import (
	"sort"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

// Offsets committed inside a transaction (KIP-98; KIP-447 adds the member
// fields): TxnOffsetCommit writes them to the group's __consumer_offsets
// partition as a transactional batch of the producer, and they stay
// pending, invisible to OffsetFetch, until the transaction's marker
// reaches that partition: a commit marker makes them the group's
// offsets, an abort marker drops them (Kafka's GroupMetadata
// pendingTransactionalOffsetCommits and completePendingTxnOffsetCommit).

// txnOffsets holds the pending transactional offsets of a coordinator.
type txnOffsets struct {
	// pending: producer id → group → partition → offset.
	pending map[int64]map[string]map[topicPartition]offset
}

func (t *txnOffsets) put(pid int64, groupID string, tp topicPartition, o offset) {
	if t.pending == nil {
		t.pending = map[int64]map[string]map[topicPartition]offset{}
	}
	if t.pending[pid] == nil {
		t.pending[pid] = map[string]map[topicPartition]offset{}
	}
	if t.pending[pid][groupID] == nil {
		t.pending[pid][groupID] = map[topicPartition]offset{}
	}
	t.pending[pid][groupID][tp] = o
}

// TxnOffsetCommit v0-4 serves a transactional producer's offsets for a
// group. v0-2 carry no member: the commit is accepted whatever the group's
// state, as Kafka did before KIP-447; v3+ name the member and generation,
// which are checked as OffsetCommit checks them.
func (c *Coordinator) TxnOffsetCommit(now int64, req *kmsg.TxnOffsetCommitRequest) *kmsg.TxnOffsetCommitResponse {
	c.advance(now)
	resp := req.ResponseKind().(*kmsg.TxnOffsetCommitResponse)
	code := c.txnCommitAllowed(req)
	g := c.groups[req.Group]
	var recs []kv
	var keep []func()
	for _, rt := range req.Topics {
		st := kmsg.NewTxnOffsetCommitResponseTopic()
		st.Topic = rt.Topic
		_, parts, known := c.cfg.Topics.Topic(rt.Topic)
		for _, rp := range rt.Partitions {
			sp := kmsg.NewTxnOffsetCommitResponseTopicPartition()
			sp.Partition = rp.Partition
			meta, errCode := c.checkCommit(code, known && rp.Partition >= 0 && rp.Partition < parts, rp.Metadata)
			if errCode != 0 {
				sp.ErrorCode = errCode
			} else {
				o := offset{rp.Offset, rp.LeaderEpoch, meta, c.now}
				if req.Version < 2 {
					o.leaderEpoch = -1
				}
				tp := topicPartition{rt.Topic, rp.Partition}
				recs = append(recs, kv{EncodeOffsetKey(g.id, tp.topic, tp.partition), EncodeOffsetValue(o.offset, o.leaderEpoch, o.metadata, o.commitTime)})
				keep = append(keep, func() { c.txn.put(req.ProducerID, g.id, tp, o) })
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if len(recs) == 0 {
		return resp
	}
	h := record.NewBatchHeader(c.now)
	h.ProducerID, h.ProducerEpoch, h.BaseSequence, h.Transactional = req.ProducerID, req.ProducerEpoch, 0, true
	bl := record.NewBuilder(h)
	for _, r := range recs {
		bl.Add(r.key, r.value, 0)
	}
	if err := c.cfg.Log.Append(g.partition, bl.Build()); err != nil {
		c.cfg.Logf("group %s: writing transactional offsets to %s-%d failed: %v", g.id, Topic, g.partition, err)
		for i := range resp.Topics {
			for j := range resp.Topics[i].Partitions {
				if sp := &resp.Topics[i].Partitions[j]; sp.ErrorCode == 0 {
					sp.ErrorCode = writeFailed()
				}
			}
		}
		return resp
	}
	for _, f := range keep {
		f()
	}
	return resp
}

func (c *Coordinator) txnCommitAllowed(req *kmsg.TxnOffsetCommitRequest) int16 {
	if req.Version < 3 || req.MemberID == "" && req.Generation < 0 {
		c.group(req.Group, true)
		return 0
	}
	oc := kmsg.NewPtrOffsetCommitRequest()
	oc.Version = 7
	oc.Group, oc.Generation, oc.MemberID, oc.InstanceID = req.Group, req.Generation, req.MemberID, req.InstanceID
	return c.commitAllowed(oc)
}

// CompleteTxn is told that a transaction marker of producer pid was
// written to __consumer_offsets partition p: the producer's pending
// offsets for the groups of that partition become committed (commit) or
// are dropped (abort). It returns the groups whose offsets changed.
func (c *Coordinator) CompleteTxn(p int32, pid int64, commit bool) []string {
	byGroup := c.txn.pending[pid]
	var done []string
	for id := range byGroup {
		if c.PartitionFor(id) == p {
			done = append(done, id)
		}
	}
	sort.Strings(done)
	for _, id := range done {
		if commit {
			g := c.group(id, true)
			//purity:unordered copies into a map
			for tp, o := range byGroup[id] {
				g.offsets[tp] = o
			}
		}
		delete(byGroup, id)
	}
	if len(byGroup) == 0 {
		delete(c.txn.pending, pid)
	}
	return done
}

// PendingTxnOffsets counts the offsets of a group waiting for their
// transaction's marker.
func (c *Coordinator) PendingTxnOffsets(groupID string) int {
	n := 0
	//purity:unordered sums counts
	for _, byGroup := range c.txn.pending {
		n += len(byGroup[groupID])
	}
	return n
}

// ReplayTxnOffset applies, at startup, one offset record of a
// transactional batch of producer pid: it is pending until ReplayTxnMarker
// meets the producer's marker later in the same partition.
func (c *Coordinator) ReplayTxnOffset(p int32, pid int64, key, value []byte) {
	e, err := DecodeEntry(key, value)
	if err != nil || !e.IsOffset || e.OffsetValue == nil {
		if err != nil {
			c.cfg.Logf("replaying %s-%d: %v", Topic, p, err)
		}
		return
	}
	v := e.OffsetValue
	c.txn.put(pid, e.Group, topicPartition{e.Topic, e.Partition}, offset{v.Offset, v.LeaderEpoch, v.Metadata, v.CommitTimestamp})
}

// ReplayTxnMarker applies, at startup, a transaction marker met in
// __consumer_offsets partition p.
func (c *Coordinator) ReplayTxnMarker(p int32, pid int64, commit bool) { c.CompleteTxn(p, pid, commit) }
