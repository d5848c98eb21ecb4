package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteRecords v0-2 (KIP-107): moves a partition's log start offset
// forward; whole segments below it are deleted. -1 means the high
// watermark. The new start offset is checkpointed with the metadata so it
// survives a restart even when it falls inside a segment.
func init() {
	register(21, api{
		min: 0, max: 2, serve: handleDeleteRecords,
		acl: onTopics{op: kmsg.ACLOperationDelete},
	})
}

func handleDeleteRecords(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DeleteRecordsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteRecordsResponse)
	moved := false
	for _, rt := range req.Topics {
		t := b.topics[rt.Topic]
		st := kmsg.NewDeleteRecordsResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewDeleteRecordsResponseTopicPartition()
			sp.Partition = rp.Partition
			p := t.partition(rp.Partition)
			off := rp.Offset
			switch {
			case p == nil || !b.leads(p):
				sp.ErrorCode = b.routeError(rt.Topic, rp.Partition)
			case off == -1 || off >= 0 && off <= p.HighWatermark:
				if off == -1 {
					off = p.HighWatermark
				}
				if off > p.log.StartOffset() {
					if err := p.log.DeleteRecordsBefore(off); err != nil {
						b.cfg.Logf("delete records in %s: %v", p, err)
						sp.ErrorCode = kerr.KafkaStorageError.Code
					}
					moved = true
				}
				sp.LowWatermark = p.log.StartOffset()
			default:
				sp.ErrorCode = kerr.OffsetOutOfRange.Code
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	if moved {
		if err := b.saveMetadata(); err != nil {
			b.cfg.Logf("checkpointing log start offsets: %v", err)
		}
	}
	return resp
}
