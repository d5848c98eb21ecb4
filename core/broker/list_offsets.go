package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets v1-11. Special timestamps: -1 latest (the high watermark, or
// the last stable offset for read_committed), -2 earliest, -3 the record
// with the largest timestamp (KIP-734), -4 earliest local (KIP-405; all data
// is local, so earliest), -5 latest tiered (KIP-1005; nothing is tiered: -1).
// A timestamp >= 0 finds the earliest record at or after it, through the
// time index and the offset index, as seed 004 describes.
func init() {
	register(2, api{
		min: 1, max: 11, serve: handleListOffsets,
		acl: onTopics{op: kmsg.ACLOperationDescribe},
	})
}

func handleListOffsets(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ListOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
	for _, rt := range req.Topics {
		t := b.topics[rt.Topic]
		st := kmsg.NewListOffsetsResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewListOffsetsResponseTopicPartition()
			sp.Partition = rp.Partition
			if p := t.partition(rp.Partition); p == nil || !b.leads(p) {
				sp.ErrorCode = b.routeError(rt.Topic, rp.Partition)
			} else {
				b.listOffset(p, req.IsolationLevel, &rp, &sp)
			}
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

func (b *Broker) listOffset(p *Partition, isolation int8, rp *kmsg.ListOffsetsRequestTopicPartition, sp *kmsg.ListOffsetsResponseTopicPartition) {
	if e := rp.CurrentLeaderEpoch; e >= 0 && e != p.LeaderEpoch {
		sp.ErrorCode = kerr.FencedLeaderEpoch.Code
		if e > p.LeaderEpoch {
			sp.ErrorCode = kerr.UnknownLeaderEpoch.Code
		}
		return
	}
	sp.LeaderEpoch = p.LeaderEpoch
	sp.Timestamp = -1
	switch ts := rp.Timestamp; {
	case ts == -1:
		sp.Offset = p.HighWatermark
		if isolation == 1 {
			sp.Offset = p.lastStableOffset()
		}
	case ts == -2 || ts == -4:
		sp.Offset = p.log.StartOffset()
	case ts == -3:
		sp.Timestamp, sp.Offset = p.log.MaxTimestamp()
	case ts == -5:
		sp.Offset = -1
	case ts >= 0:
		off, at, ok, err := p.log.OffsetForTimestamp(ts)
		switch {
		case err != nil:
			b.cfg.Logf("timestamp lookup in %s failed: %v", p, err)
			sp.ErrorCode = kerr.KafkaStorageError.Code
		case ok && off < p.HighWatermark && (isolation != 1 || off < p.lastStableOffset()):
			sp.Offset, sp.Timestamp = off, at
		default:
			sp.Offset = -1
		}
	default:
		sp.ErrorCode = kerr.InvalidRequest.Code
	}
}
