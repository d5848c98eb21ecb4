package broker

import (
	"maps"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
	"github.com/gregor-kafka/gregor/core/share"
)

// The coordinators across brokers. A group or transactional id belongs to
// one partition of __consumer_offsets or __transaction_state, and its
// coordinator is that partition's leader, so coordinators move with
// leadership (Kafka's onLeadershipChange → onElection / onResignation):
//
//   - when this broker becomes leader of an internal partition it loads
//     the groups or transactions stored there by replaying its log
//     (decided transactions get their markers again);
//   - when it stops leading it unloads them: waiting JoinGroup and
//     SyncGroup calls are answered NOT_COORDINATOR, and later requests
//     too, so clients look the coordinator up again;
//   - the transaction coordinator reaches the leaders of the partitions in
//     a transaction with WriteTxnMarkers over the transport (markerChannel),
//     and the leaders answer once the marker is replicated.
//
// On a single broker every partition is led here from the start and the
// markers are written in-process.

// loadCoordinator rebuilds the state stored in an internal partition this
// broker just became leader of.
func (b *Broker) loadCoordinator(p *Partition) {
	if p.offline {
		return // its log failed: nothing here to coordinate from
	}
	var err error
	n := 0
	switch p.Topic.Name {
	case OffsetsTopic:
		err = b.groups.Replay(p.Index)
		for _, id := range b.groups.Groups() {
			if b.groups.PartitionFor(id) == p.Index {
				n++
			}
		}
	case TransactionStateTopic:
		err = b.txn.Replay(p.Index)
		for _, id := range b.txn.IDs() {
			if b.txn.PartitionFor(id) == p.Index {
				n++
			}
		}
	case share.StateTopic:
		err = b.shares.Replay(p.Index)
		n = b.shares.Count(p.Index)
	default:
		return
	}
	switch {
	case err != nil:
		b.cfg.Logf("%s: loading the coordinator's state failed: %v", p, err)
	case n > 0:
		b.cfg.Logf("%s: coordinator loaded %d ids (epoch %d)", p, n, p.LeaderEpoch)
	}
}

// unloadCoordinator forgets the state of an internal partition this
// broker no longer leads.
func (b *Broker) unloadCoordinator(p *Partition) {
	var gone []string
	switch p.Topic.Name {
	case OffsetsTopic:
		gone = b.groups.Unload(p.Index)
	case TransactionStateTopic:
		gone = b.txn.Unload(p.Index)
	case share.StateTopic:
		if n := b.shares.Unload(p.Index); n > 0 {
			b.cfg.Logf("%s: share coordinator unloaded %d share partitions", p, n)
		}
		return
	default: // a share-partition leader forgets what its coordinator keeps
		b.share.Unload(p.Topic.ID, p.Index)
		return
	}
	if len(gone) > 0 {
		b.cfg.Logf("%s: coordinator unloaded %d ids", p, len(gone))
	}
}

// markerChannel carries the transaction coordinator's markers to the
// partition leaders (Kafka's TransactionMarkerChannelManager): the
// partitions this broker leads get them in-process, the others in one
// WriteTxnMarkers per leader. The answers are merged into one; a
// partition without a leader, or whose leader did not answer, gets a
// retriable error and the coordinator sends it again.
type markerChannel struct{ b *Broker }

func (mc markerChannel) WriteTxnMarkers(req *kmsg.WriteTxnMarkersRequest, done func(*kmsg.WriteTxnMarkersResponse)) {
	b := mc.b
	merged := req.ResponseKind().(*kmsg.WriteTxnMarkersResponse)
	byLeader := map[int32]*kmsg.WriteTxnMarkersRequest{}
	for _, m := range req.Markers {
		for _, t := range m.Topics {
			for _, idx := range t.Partitions {
				leader := cluster.NoLeader
				if p := b.topics[t.Topic].partition(idx); p != nil && p.Leader == b.cfg.NodeID {
					leader = b.cfg.NodeID // offline too: it answers KAFKA_STORAGE_ERROR
				} else if ip, ok := b.image.partition(t.Topic, idx); ok {
					leader = ip.leader
				}
				if leader == cluster.NoLeader {
					addMarkerResult(merged, m.ProducerID, t.Topic, idx, b.routeError(t.Topic, idx))
					continue
				}
				sub := byLeader[leader]
				if sub == nil {
					sub = kmsg.NewPtrWriteTxnMarkersRequest()
					sub.SetVersion(req.GetVersion())
					byLeader[leader] = sub
				}
				addMarker(sub, m, t.Topic, idx)
			}
		}
	}
	leaders := slices.Sorted(maps.Keys(byLeader))
	open := len(leaders)
	answered := func(sub *kmsg.WriteTxnMarkersRequest, resp *kmsg.WriteTxnMarkersResponse) {
		if resp == nil { // lost with its leader: every partition retries
			resp = sub.ResponseKind().(*kmsg.WriteTxnMarkersResponse)
			for _, m := range sub.Markers {
				for _, t := range m.Topics {
					for _, idx := range t.Partitions {
						addMarkerResult(resp, m.ProducerID, t.Topic, idx, kerr.RequestTimedOut.Code)
					}
				}
			}
		}
		merged.Markers = append(merged.Markers, resp.Markers...)
		if open--; open == 0 {
			done(merged)
		}
	}
	if open == 0 {
		done(merged)
		return
	}
	for _, id := range leaders {
		sub := byLeader[id]
		if id == b.cfg.NodeID {
			// In-process: the coordinator hears of the markers (and
			// writes its Complete record) only once the partitions' syncs
			// the flush policy asks for are done, so no Complete follows
			// a failed one.
			b.writeTxnMarkers(nil, sub, func(resp *kmsg.WriteTxnMarkersResponse, syncs []ackWait) {
				b.afterSyncs(syncs, func() { answered(sub, resp) })
			})
			continue
		}
		b.send(id, sub, func(r kmsg.Response) {
			resp, _ := r.(*kmsg.WriteTxnMarkersResponse)
			answered(sub, resp)
		})
	}
}

// addMarker puts partition idx of topic into req under a copy of marker m.
func addMarker(req *kmsg.WriteTxnMarkersRequest, m kmsg.WriteTxnMarkersRequestMarker, topic string, idx int32) {
	n := len(req.Markers)
	if n == 0 || req.Markers[n-1].ProducerID != m.ProducerID {
		c := m
		c.Topics = nil
		req.Markers = append(req.Markers, c)
		n++
	}
	mk := &req.Markers[n-1]
	if k := len(mk.Topics); k > 0 && mk.Topics[k-1].Topic == topic {
		mk.Topics[k-1].Partitions = append(mk.Topics[k-1].Partitions, idx)
		return
	}
	t := kmsg.NewWriteTxnMarkersRequestMarkerTopic()
	t.Topic, t.Partitions = topic, []int32{idx}
	mk.Topics = append(mk.Topics, t)
}

// addMarkerResult records one partition's outcome in resp.
func addMarkerResult(resp *kmsg.WriteTxnMarkersResponse, pid int64, topic string, idx int32, code int16) {
	rm := kmsg.NewWriteTxnMarkersResponseMarker()
	rm.ProducerID = pid
	rt := kmsg.NewWriteTxnMarkersResponseMarkerTopic()
	rt.Topic = topic
	sp := kmsg.NewWriteTxnMarkersResponseMarkerTopicPartition()
	sp.Partition, sp.ErrorCode = idx, code
	rt.Partitions = append(rt.Partitions, sp)
	rm.Topics = append(rm.Topics, rt)
	resp.Markers = append(resp.Markers, rm)
}
