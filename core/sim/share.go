package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/describe"
	"github.com/gregor-kafka/gregor/core/record"
	"github.com/gregor-kafka/gregor/core/share"
)

// shareMember is a share group consumer (KIP-932), as franz-go's and the
// Java client's: it makes its member id (its name), heartbeats with
// ShareGroupHeartbeat every interval the coordinator gives, and on poll
// sends one ShareFetch for the partitions it is assigned, in its share
// session, with the acknowledgements it has queued. Its records stay
// held (acquired, locked) until it acknowledges them with share ack or
// their lock expires. The simulator's share groups live on a single
// broker, which is both coordinator and leader; topic names come from
// that broker's metadata, as a client's Metadata request would give them.
type shareMember struct {
	conn
	broker, group string
	topics        []string
	epoch         int32 // member epoch, 0 until joined, -1 once left
	assigned      []share.TP
	session       int32 // the next share session epoch
	held          map[share.TP][]int64
	hbMs, hbAt    int64
	hbCorr        int32
}

func init() { commands["share"] = cmdShare }

// cmdShare: share join NAME group=G topics=T1,T2 | share poll NAME
// [max=N] [wait=MS] (max.poll.records, share.fetch.max.wait.ms) | share ack NAME accept|release|reject [offsets=N,M] |
// share leave NAME.
func cmdShare(w *World, c command) error {
	verb, err := c.arg(0, "join|poll|ack|leave")
	if err != nil {
		return err
	}
	name, err := c.arg(1, "member name")
	if err != nil {
		return err
	}
	if verb == "join" {
		return shareJoin(w, c, name)
	}
	m, ok := w.clients[name].(*shareMember)
	if !ok {
		return fmt.Errorf("share %s: %s is not a share group member", verb, name)
	}
	switch verb {
	case "poll":
		wait, err := c.int("wait", 0)
		if err != nil {
			return err
		}
		most, err := c.int("max", 500)
		if err != nil {
			return err
		}
		m.poll(w, int32(wait), int32(most))
	case "ack":
		typ, err := c.arg(2, "accept|release|reject")
		if err != nil {
			return err
		}
		return m.ack(w, typ, c.kv["offsets"])
	case "leave":
		m.heartbeat(w, -1)
	default:
		return fmt.Errorf("share: %q is not join, poll, ack or leave", verb)
	}
	return nil
}

func shareJoin(w *World, c command, name string) error {
	if w.clients[name] != nil {
		return fmt.Errorf("share join: %s already exists", name)
	}
	if w.cl != nil {
		return fmt.Errorf("share join: the simulator runs share groups on a single broker")
	}
	to, err := w.firstBroker(c)
	if err != nil {
		return err
	}
	g := c.kv["group"]
	if g == "" {
		return fmt.Errorf("share join: give group=G")
	}
	topics, err := c.topics()
	if err != nil {
		return err
	}
	m := &shareMember{broker: to, group: g, topics: topics, held: map[share.TP][]int64{}, hbMs: 5000}
	m.init(w, name)
	w.clients[name] = m
	m.heartbeat(w, 0)
	return nil
}

func (m *shareMember) heartbeat(w *World, epoch int32) {
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.SetVersion(1)
	req.GroupID, req.MemberID, req.MemberEpoch = m.group, m.name, epoch
	if epoch == 0 {
		req.SubscribedTopicNames = m.topics
	}
	m.hbAt = w.now + m.hbMs
	m.hbCorr = m.send(w, m.broker, req, nil)
}

// topicName resolves a topic id through the broker's metadata.
func (m *shareMember) topicName(w *World, id [16]byte) string {
	if n, err := w.node(m.broker); err == nil && n.Broker != nil {
		for _, t := range n.Broker.Topics() {
			if t.ID == id {
				return t.Name
			}
		}
	}
	return fmt.Sprintf("%x", id[:4])
}

func (m *shareMember) poll(w *World, waitMs, maxRecords int32) {
	req := kmsg.NewPtrShareFetchRequest()
	req.SetVersion(1)
	req.GroupID, req.MemberID = &m.group, &m.name
	req.ShareSessionEpoch, req.MaxWaitMillis, req.MaxBytes, req.MaxRecords = m.session, waitMs, 1<<20, maxRecords
	for _, tp := range m.assigned {
		if len(req.Topics) == 0 || req.Topics[len(req.Topics)-1].TopicID != tp.TopicID {
			req.Topics = append(req.Topics, kmsg.ShareFetchRequestTopic{TopicID: tp.TopicID})
		}
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, kmsg.ShareFetchRequestTopicPartition{Partition: tp.Partition, PartitionMaxBytes: 1 << 20})
	}
	m.send(w, m.broker, req, nil)
}

// ack sends a ShareAcknowledge for the held records (all, or the offsets
// listed), of one type.
func (m *shareMember) ack(w *World, typ, offsets string) error {
	t := map[string]int8{"accept": share.AckAccept, "release": share.AckRelease, "reject": share.AckReject}[typ]
	if t == 0 {
		return fmt.Errorf("share ack: %q is not accept, release or reject", typ)
	}
	var only []int64
	for _, s := range strings.Split(offsets, ",") {
		if s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("share ack: offsets=%q is not a list of offsets", offsets)
			}
			only = append(only, n)
		}
	}
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.SetVersion(1)
	req.GroupID, req.MemberID, req.ShareSessionEpoch = &m.group, &m.name, m.session
	for _, tp := range m.assigned {
		var batches []kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch
		var kept []int64
		for _, off := range m.held[tp] {
			if only != nil && !slices.Contains(only, off) {
				kept = append(kept, off)
				continue
			}
			if n := len(batches) - 1; n >= 0 && batches[n].LastOffset == off-1 {
				batches[n].LastOffset = off
				continue
			}
			batches = append(batches, kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch{FirstOffset: off, LastOffset: off, AcknowledgeTypes: []int8{t}})
		}
		m.held[tp] = kept
		if len(batches) > 0 {
			req.Topics = append(req.Topics, kmsg.ShareAcknowledgeRequestTopic{TopicID: tp.TopicID,
				Partitions: []kmsg.ShareAcknowledgeRequestTopicPartition{{Partition: tp.Partition, AcknowledgementBatches: batches}}})
		}
	}
	if len(req.Topics) == 0 {
		return fmt.Errorf("share ack: %s holds no such records", m.name)
	}
	m.send(w, m.broker, req, nil)
	return nil
}

func (m *shareMember) receive(w *World, msg *Message) {
	if m.take(msg) == nil {
		return
	}
	switch r := msg.Resp.(type) {
	case *kmsg.ShareGroupHeartbeatResponse:
		m.hbCorr = 0
		if r.ErrorCode != 0 || r.MemberEpoch < 0 {
			m.epoch = r.MemberEpoch
			if r.ErrorCode != 0 {
				w.notef(m.name, "note", "heartbeat failed: %s", describe.ErrorName(r.ErrorCode))
			}
			return
		}
		m.epoch = r.MemberEpoch
		if r.HeartbeatIntervalMillis > 0 {
			m.hbMs = int64(r.HeartbeatIntervalMillis)
		}
		m.hbAt = w.now + m.hbMs
		if r.Assignment != nil {
			m.assigned = nil
			var names []string
			for _, t := range r.Assignment.TopicPartitions {
				for _, p := range t.Partitions {
					m.assigned = append(m.assigned, share.TP{TopicID: t.TopicID, Partition: p})
					names = append(names, fmt.Sprintf("%s-%d", m.topicName(w, t.TopicID), p))
				}
			}
			share.SortTPs(m.assigned)
			w.notef(m.name, "note", "assigned %s (member epoch %d)", orNone(names), m.epoch)
		}
	case *kmsg.ShareFetchResponse:
		if r.ErrorCode != 0 {
			w.notef(m.name, "note", "share fetch failed: %s", describe.ErrorName(r.ErrorCode))
			return
		}
		m.session++
		for _, t := range r.Topics {
			for _, p := range t.Partitions {
				m.took(w, t.TopicID, p)
			}
		}
	case *kmsg.ShareAcknowledgeResponse:
		if r.ErrorCode == 0 {
			m.session++
		}
	}
}

// took notes the records a share fetch acquired: offset:value, and the
// delivery count when it is a redelivery.
func (m *shareMember) took(w *World, id [16]byte, p kmsg.ShareFetchResponseTopicPartition) {
	tp := share.TP{TopicID: id, Partition: p.Partition}
	name := fmt.Sprintf("%s-%d", m.topicName(w, id), p.Partition)
	if p.ErrorCode != 0 || p.AcknowledgeErrorCode != 0 {
		w.notef(m.name, "note", "%s: %s", name, describe.ErrorName(max(p.ErrorCode, p.AcknowledgeErrorCode)))
	}
	count := map[int64]int16{}
	for _, a := range p.AcquiredRecords {
		for off := a.FirstOffset; off <= a.LastOffset; off++ {
			count[off] = a.DeliveryCount
		}
	}
	var got []string
	it := record.NewIter(p.Records)
	for b, ok := it.Next(); ok; b, ok = it.Next() {
		recs, err := b.Records()
		if err != nil {
			continue
		}
		for _, r := range recs {
			off := b.BaseOffset() + int64(r.OffsetDelta)
			if c, ok := count[off]; ok {
				s := fmt.Sprintf("%d:%s", off, r.Value)
				if c > 1 {
					s += fmt.Sprintf("(delivery %d)", c)
				}
				got = append(got, s)
				if !slices.Contains(m.held[tp], off) {
					m.held[tp] = append(m.held[tp], off)
				}
			}
		}
	}
	if len(got) > 0 {
		w.notef(m.name, "note", "%s: acquired %s", name, strings.Join(got, " "))
	} else if p.ErrorCode == 0 && p.AcknowledgeErrorCode == 0 {
		w.notef(m.name, "note", "%s: nothing to acquire", name)
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, " ")
}

func (m *shareMember) deadline() (int64, bool) {
	at, ok := m.conn.deadline()
	if m.epoch > 0 && m.hbCorr == 0 && (!ok || m.hbAt < at) {
		at, ok = m.hbAt, true
	}
	return at, ok
}

func (m *shareMember) tick(w *World) {
	m.expire(w)
	if m.epoch > 0 && m.hbCorr == 0 && w.now >= m.hbAt {
		m.heartbeat(w, m.epoch)
	}
}

// showShare: show share GROUP TOPIC-P prints the share partition's
// in-flight records, offset by offset: available, acquired by whom and
// for how much longer, acknowledged or archived, and how many times each
// was delivered.
func (w *World) showShare(c command) error {
	g, err := c.arg(1, "share group")
	if err != nil {
		return err
	}
	tpArg, err := c.arg(2, "topic-partition")
	if err != nil {
		return err
	}
	n, p, err := w.partitionOf(c, tpArg)
	if err != nil {
		return err
	}
	e := n.Broker.Share()
	sp := e.Partition(share.Key{Group: g, TopicID: p.Topic.ID, Partition: p.Index})
	if sp == nil {
		w.notef(n.Name, "view", "share group %s has not read %s", g, tpArg)
		return nil
	}
	lim := e.Limits()
	w.notef(n.Name, "view", "share group %s %s: start offset %d, end %d (lock %dms, delivery limit %d)", g, tpArg, sp.Start, sp.End(), lim.LockMs, lim.MaxDelivery)
	for i, r := range sp.Records() {
		s := fmt.Sprintf("  %d %s", sp.Start+int64(i), r.State)
		if r.State == share.Acquired {
			s += fmt.Sprintf(" by %s, lock ends in %dms", r.Owner, r.Until-w.now)
		}
		w.notef(n.Name, "view", "%s (delivery %d)", s, r.Count)
	}
	return nil
}
