package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// AddPartitionsToTxn (key 24): before v4 an error answer names every
// partition asked for (franz-go reads one left out as added); v4+, a
// broker's batch (KIP-890), answers code at the top.
func init() {
	errorAnswer(func(r *kmsg.AddPartitionsToTxnRequest, out *kmsg.AddPartitionsToTxnResponse, code int16) {
		if r.Version >= 4 {
			out.ErrorCode = code
			return
		}
		for _, t := range r.Topics {
			rt := kmsg.NewAddPartitionsToTxnResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, kmsg.AddPartitionsToTxnResponseTopicPartition{Partition: p, ErrorCode: code})
			}
			out.Topics = append(out.Topics, rt)
		}
	})
}
