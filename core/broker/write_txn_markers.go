package broker

import (
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
func init() { register(27, 0, 2, handleWriteTxnMarkers) }

// MarkerWriter is what a transaction coordinator needs from a partition
// leader to finish a transaction. A Broker implements it for the
// partitions it leads, in-process and synchronously; for partitions led
// elsewhere the coordinator sends the same kmsg.WriteTxnMarkersRequest
// over the transport, and the handler there runs the same code.
type MarkerWriter interface {
	WriteTxnMarkers(req *kmsg.WriteTxnMarkersRequest) *kmsg.WriteTxnMarkersResponse
}

var _ MarkerWriter = (*Broker)(nil)

func handleWriteTxnMarkers(b *Broker, r *Request) kmsg.Response {
	resp, mustSync := b.writeTxnMarkers(r.Msg.(*kmsg.WriteTxnMarkersRequest))
	if mustSync {
		b.awaitFlush = append(b.awaitFlush, Response{r.Conn, r.Header.CorrelationID, resp})
		return nil
	}
	return resp
}

// WriteTxnMarkers appends the markers to this broker's partitions at once
// and answers with an error code per partition (0 when the marker is in
// the log). A marker is durable at the driver's next Commit, together with
// whatever the coordinator writes to __transaction_state meanwhile.
func (b *Broker) WriteTxnMarkers(req *kmsg.WriteTxnMarkersRequest) *kmsg.WriteTxnMarkersResponse {
	resp, _ := b.writeTxnMarkers(req)
	return resp
}

func (b *Broker) writeTxnMarkers(req *kmsg.WriteTxnMarkersRequest) (*kmsg.WriteTxnMarkersResponse, bool) {
	resp := req.ResponseKind().(*kmsg.WriteTxnMarkersResponse)
	mustSync := false
	for _, m := range req.Markers {
		rm := kmsg.NewWriteTxnMarkersResponseMarker()
		rm.ProducerID = m.ProducerID
		mk := producer.Marker{
			ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch, Commit: m.Committed,
			CoordinatorEpoch: m.CoordinatorEpoch, TransactionVersion: m.TransactionVersion,
		}
		for _, rt := range m.Topics {
			st := kmsg.NewWriteTxnMarkersResponseMarkerTopic()
			st.Topic = rt.Topic
			t := b.topics[rt.Topic]
			for _, idx := range rt.Partitions {
				sp := kmsg.NewWriteTxnMarkersResponseMarkerTopicPartition()
				sp.Partition = idx
				if p := t.partition(idx); p == nil {
					sp.ErrorCode = kerr.UnknownTopicOrPartition.Code
				} else {
					var synced bool
					sp.ErrorCode, synced = b.appendMarker(p, mk)
					mustSync = mustSync || synced
				}
				st.Partitions = append(st.Partitions, sp)
			}
			rm.Topics = append(rm.Topics, st)
		}
		resp.Markers = append(resp.Markers, rm)
	}
	return resp, mustSync
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
		b.cfg.Logf("append of a marker to %s failed: %v", p, err)
		return kerr.KafkaStorageError.Code, false
	}
	err := applyBatch(p.log, p.producers, batch)
	b.advanceHighWatermark(p)
	b.wakeFetches(p)
	if err != nil {
		b.cfg.Logf("indexing an aborted transaction of %s failed: %v", p, err)
		return kerr.KafkaStorageError.Code, false
	}
	if h := b.txnHooks.Completed; h != nil {
		h(p.Topic.Name, p.Index, m.ProducerID, m.Commit)
	}
	if p.log.NeedsFlush(b.now) {
		b.markDirty(p)
		return 0, true
	}
	return 0, false
}
