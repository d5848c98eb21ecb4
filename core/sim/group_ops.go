package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gregor-kafka/gregor/core/describe"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// What a group member does besides rebalancing: commit offsets under its
// generation, poll its partitions from the committed offsets, and leave.

// commit sends OffsetCommit with the member's generation and member id, as
// commitSync does: the coordinator refuses a member that is not in the
// current generation, so a zombie cannot overwrite the new owner's offsets.
func (m *member) commit(w *World, offsets map[assign.TopicPartition]int64) error {
	if m.coord == "" || m.state >= memberLeft {
		return fmt.Errorf("commit: %s has no coordinator (state %s)", m.name, m.state)
	}
	tps := make([]assign.TopicPartition, 0, len(offsets))
	for tp := range offsets {
		tps = append(tps, tp)
	}
	assign.SortPartitions(tps)
	req := kmsg.NewPtrOffsetCommitRequest()
	req.SetVersion(8)
	req.Group, req.Generation, req.MemberID = m.groupID, m.generation, m.memberID
	if m.instance != "" {
		req.InstanceID = &m.instance
	}
	for _, tp := range tps {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, kmsg.OffsetCommitRequestTopic{Topic: tp.Topic})
		}
		rp := kmsg.NewOffsetCommitRequestTopicPartition()
		rp.Partition, rp.Offset = tp.Partition, offsets[tp]
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	m.sendTo(w, m.coord, req, 0, nil)
	return nil
}

func (m *member) onCommit(w *World, r *kmsg.OffsetCommitResponse) {
	var failed []string
	code := int16(0)
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode != 0 {
				failed = append(failed, fmt.Sprintf("%s-%d", t.Topic, p.Partition))
				code = p.ErrorCode
			}
		}
	}
	if len(failed) == 0 {
		return
	}
	switch code {
	case kerr.IllegalGeneration.Code, kerr.UnknownMemberID.Code:
		w.notef(m.name, "error", "commit of %s failed: %s (CommitFailedException: the group has rebalanced; the partitions may belong to another member now)", strings.Join(failed, ","), describe.ErrorName(code))
	default:
		w.notef(m.name, "error", "commit of %s failed: %s", strings.Join(failed, ","), describe.ErrorName(code))
	}
}

// poll reads once from every owned partition. A partition without a
// position first asks the coordinator for the group's committed offset
// (OffsetFetch); without one, auto.offset.reset=earliest applies
// (ListOffsets).
func (m *member) poll(w *World) error {
	switch {
	case m.state != memberStable:
		return fmt.Errorf("poll: %s is %s, not in a stable generation", m.name, m.state)
	case m.polling:
		return fmt.Errorf("poll: %s is already polling", m.name)
	case len(m.owned) == 0:
		w.notef(m.name, "note", "owns no partitions: nothing to poll")
		return nil
	}
	m.polling = true
	var missing []assign.TopicPartition
	for _, tp := range m.owned {
		if _, ok := m.positions[tp]; !ok {
			missing = append(missing, tp)
		}
	}
	if len(missing) == 0 {
		m.fetch(w)
		return nil
	}
	req := kmsg.NewPtrOffsetFetchRequest()
	req.SetVersion(7)
	req.Group = m.groupID
	for _, tp := range missing {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, kmsg.OffsetFetchRequestTopic{Topic: tp.Topic})
		}
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, tp.Partition)
	}
	m.sendTo(w, m.coord, req, 0, m.pollFailed)
	return nil
}

func (m *member) pollFailed(*World) { m.polling = false }

func (m *member) onOffsetFetch(w *World, r *kmsg.OffsetFetchResponse) {
	var reset []assign.TopicPartition
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			tp := assign.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			switch {
			case p.ErrorCode != 0 || r.ErrorCode != 0:
				w.notef(m.name, "error", "%s: OffsetFetch failed: %s", tp, describe.ErrorName(max(p.ErrorCode, r.ErrorCode)))
				m.polling = false
				return
			case p.Offset >= 0:
				m.positions[tp] = p.Offset
				w.notef(m.name, "note", "%s: resumes from the committed offset %d", tp, p.Offset)
			default:
				reset = append(reset, tp)
				w.notef(m.name, "note", "%s: no committed offset: auto.offset.reset=earliest", tp)
			}
		}
	}
	if len(reset) == 0 {
		m.fetch(w)
		return
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.SetVersion(7)
	for _, tp := range reset {
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, kmsg.ListOffsetsRequestTopic{Topic: tp.Topic})
		}
		rp := kmsg.NewListOffsetsRequestTopicPartition()
		rp.Partition, rp.Timestamp = tp.Partition, -2
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	m.sendTo(w, m.broker, req, 0, m.pollFailed)
}

func (m *member) onListOffsets(w *World, r *kmsg.ListOffsetsResponse) {
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			if p.ErrorCode == 0 {
				m.positions[assign.TopicPartition{Topic: t.Topic, Partition: p.Partition}] = p.Offset
			}
		}
	}
	m.fetch(w)
}

// fetch reads every owned partition that has a position, in one Fetch.
func (m *member) fetch(w *World) {
	req := kmsg.NewPtrFetchRequest()
	req.SetVersion(11)
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes = 0, 1, 1<<20
	for _, tp := range m.owned {
		pos, ok := m.positions[tp]
		if !ok {
			continue
		}
		if n := len(req.Topics); n == 0 || req.Topics[n-1].Topic != tp.Topic {
			req.Topics = append(req.Topics, kmsg.FetchRequestTopic{Topic: tp.Topic})
		}
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes = tp.Partition, pos, 1<<20
		t := &req.Topics[len(req.Topics)-1]
		t.Partitions = append(t.Partitions, rp)
	}
	if len(req.Topics) == 0 {
		m.polling = false
		return
	}
	m.sendTo(w, m.broker, req, 0, m.pollFailed)
}

func (m *member) onFetch(w *World, r *kmsg.FetchResponse) {
	m.polling = false
	reader := &consumer{}
	for _, t := range r.Topics {
		for _, p := range t.Partitions {
			tp := assign.TopicPartition{Topic: t.Topic, Partition: p.Partition}
			if !slices.Contains(m.owned, tp) {
				continue // revoked while the fetch was in flight
			}
			got, next := reader.records(p, m.positions[tp])
			if next > m.positions[tp] {
				m.positions[tp] = next
			}
			if len(got) == 0 {
				w.notef(m.name, "note", "%s: no records (position %d)", tp, m.positions[tp])
				continue
			}
			w.notef(m.name, "note", "%s: %s (position %d)", tp, strings.Join(got, " "), m.positions[tp])
		}
	}
}

// leave is close(): the member gives up its partitions and, if dynamic,
// sends LeaveGroup so that the group rebalances at once. A static member
// (KIP-345) sends nothing: the coordinator keeps its place for
// session.timeout.ms, so a quick restart causes no rebalance.
func (m *member) leave(w *World) error {
	if m.state >= memberLeft {
		return fmt.Errorf("leave: %s has already left", m.name)
	}
	if len(m.owned) > 0 {
		w.notef(m.name, "note", "revokes %s (onPartitionsRevoked)", tpList(m.owned))
		m.drop(m.owned)
	}
	coord, id := m.coord, m.memberID
	clear(m.inflight)
	m.joinCorr, m.syncCorr, m.hbCorr, m.retryAt, m.retry = 0, 0, 0, 0, nil
	m.state = memberLeft
	switch {
	case m.instance != "":
		w.notef(m.name, "note", "static member %s closes without LeaveGroup (KIP-345): the coordinator waits session.timeout.ms", m.instance)
		return nil
	case coord == "" || id == "":
		w.notef(m.name, "note", "closes before it joined")
		return nil
	}
	req := kmsg.NewPtrLeaveGroupRequest()
	req.SetVersion(5)
	req.Group = m.groupID
	lm := kmsg.NewLeaveGroupRequestMember()
	lm.MemberID = id
	req.Members = append(req.Members, lm)
	m.sendTo(w, coord, req, 0, nil)
	return nil
}

// receiveOps handles the answers of commit, poll and leave.
func (m *member) receiveOps(w *World, resp kmsg.Response) {
	switch r := resp.(type) {
	case *kmsg.OffsetCommitResponse:
		m.onCommit(w, r)
	case *kmsg.OffsetFetchResponse:
		m.onOffsetFetch(w, r)
	case *kmsg.ListOffsetsResponse:
		m.onListOffsets(w, r)
	case *kmsg.FetchResponse:
		m.onFetch(w, r)
	case *kmsg.LeaveGroupResponse:
		if r.ErrorCode == 0 && len(r.Members) > 0 && r.Members[0].ErrorCode != 0 {
			w.notef(m.name, "error", "LeaveGroup: %s", describe.ErrorName(r.Members[0].ErrorCode))
		}
	}
}
