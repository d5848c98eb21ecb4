package broker

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/producer"
)

// WriteTxnMarkers v0-2 (KIP-98; v1 is flexible; v2 carries the transaction
// version, KIP-890 part 2). The transaction coordinator sends it to the
// leader of every partition in a transaction once PrepareCommit or
// PrepareAbort is in __transaction_state. For each partition the leader
// does what Kafka's ReplicaManager does for an append with origin
// COORDINATOR: it checks the marker against the producer state (a lower
// coordinator epoch: TRANSACTION_COORDINATOR_FENCED; a stale producer
// epoch: INVALID_PRODUCER_EPOCH), appends a control batch (see
// producer.MarkerBatch), closes the producer's open transaction, which
// lets the last stable offset move on, and for an abort adds an entry to
// the segment's .txnindex. Like a produce with acks=all, the answer waits
// for the sync that flush.messages/flush.ms ask for.
func init() { register(27, api{min: 0, max: 2, serve: handleWriteTxnMarkers}) }

func handleWriteTxnMarkers(b *Broker, r *Request) kmsg.Response {
	req := *r
	b.writeTxnMarkers(&req.Conn, r.Msg.(*kmsg.WriteTxnMarkersRequest), func(resp *kmsg.WriteTxnMarkersResponse, syncs []ackWait) {
		b.answer(req, resp, syncs)()
	})
	return nil
}

// writeTxnMarkers appends the markers to the partitions this broker leads
// and calls answer with an error code per partition once they are
// durable: in a cluster when the ISR has them (Kafka appends markers with
// acks=all), on a single broker at once, with syncs naming the partitions
// whose flush policy wants the next Commit's sync first (a failed one
// answers KAFKA_STORAGE_ERROR, see storage_failure.go).
func (b *Broker) writeTxnMarkers(conn *uint64, req *kmsg.WriteTxnMarkersRequest, answer func(*kmsg.WriteTxnMarkersResponse, []ackWait)) {
	resp := req.ResponseKind().(*kmsg.WriteTxnMarkersResponse)
	var syncs, waits []ackWait
	for mi, m := range req.Markers {
		rm := kmsg.NewWriteTxnMarkersResponseMarker()
		rm.ProducerID = m.ProducerID
		mk := producer.Marker{
			ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch, Commit: m.Committed,
			CoordinatorEpoch: m.CoordinatorEpoch, TransactionVersion: m.TransactionVersion,
		}
		for ti, rt := range m.Topics {
			st := kmsg.NewWriteTxnMarkersResponseMarkerTopic()
			st.Topic = rt.Topic
			t := b.topics[rt.Topic]
			for pi, idx := range rt.Partitions {
				sp := kmsg.NewWriteTxnMarkersResponseMarkerTopicPartition()
				sp.Partition = idx
				switch p := t.partition(idx); {
				case p == nil || !b.leads(p):
					sp.ErrorCode = b.routeError(rt.Topic, idx)
				case p.offline:
					sp.ErrorCode = kerr.KafkaStorageError.Code
				default:
					var synced bool
					sp.ErrorCode, synced = b.appendMarker(p, mk)
					settle := func(code int16) {
						resp.Markers[mi].Topics[ti].Partitions[pi].ErrorCode = code
					}
					if synced {
						syncs = append(syncs, ackWait{p: p, settle: settle})
					}
					if sp.ErrorCode == 0 && p.lead != nil {
						waits = append(waits, ackWait{p: p, lead: p.lead, need: p.log.EndOffset(), settle: settle})
					}
				}
				st.Partitions = append(st.Partitions, sp)
			}
			rm.Topics = append(rm.Topics, st)
		}
		resp.Markers = append(resp.Markers, rm)
	}
	if len(waits) == 0 {
		answer(resp, syncs)
		return
	}
	b.awaitISR(conn, waits, b.cfg.Settings.Int64("request.timeout.ms"), func() { answer(resp, syncs) })
}

// appendMarker writes one marker to p. It returns the error code and
// whether the partition must be synced before the answer goes out.
func (b *Broker) appendMarker(p *Partition, m producer.Marker) (int16, bool) {
	if code, msg := p.producers.CheckMarker(m); code != 0 {
		b.cfg.Logf("%s: marker refused: %s", p, msg)
		return code, false
	}
	batch := producer.MarkerBatch(m, b.now, p.LeaderEpoch)
	if _, err := p.log.Append(batch, b.now); err != nil {
		b.failPartition(p, fmt.Errorf("appending a marker to %s: %w", p, err))
		return kerr.KafkaStorageError.Code, false
	}
	if err := applyBatch(p.log, p.producers, batch); err != nil {
		// The marker is in the log but its .txnindex entry is not: a
		// read_committed consumer could not be told to drop the
		// aborted records. The partition goes offline; the restart's
		// recovery rebuilds the index from the log.
		b.failPartition(p, fmt.Errorf("indexing an aborted transaction of %s: %w", p, err))
		return kerr.KafkaStorageError.Code, false
	}
	b.advanceHighWatermark(p)
	b.wakeFetches(p)
	if h := b.txnHooks.Completed; h != nil {
		h(p.Topic.Name, p.Index, m.ProducerID, m.Commit)
	}
	if p.log.NeedsFlush(b.now) {
		b.markDirty(p)
		return 0, true
	}
	return 0, false
}
