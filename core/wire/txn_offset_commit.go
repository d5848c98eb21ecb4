package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// TxnOffsetCommit (key 28, KIP-98): an error answer names every partition
// asked for.
func init() {
	errorAnswer(func(r *kmsg.TxnOffsetCommitRequest, out *kmsg.TxnOffsetCommitResponse, code int16) {
		for _, t := range r.Topics {
			rt := kmsg.NewTxnOffsetCommitResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, kmsg.TxnOffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			out.Topics = append(out.Topics, rt)
		}
	})
}
