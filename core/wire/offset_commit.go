package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// OffsetCommit (key 8): an error answer names every partition asked for,
// so that no client reads one left out as committed.
func init() {
	errorAnswer(func(r *kmsg.OffsetCommitRequest, out *kmsg.OffsetCommitResponse, code int16) {
		for _, t := range r.Topics {
			rt := kmsg.NewOffsetCommitResponseTopic()
			rt.Topic, rt.TopicID = t.Topic, t.TopicID
			for _, p := range t.Partitions {
				rt.Partitions = append(rt.Partitions, kmsg.OffsetCommitResponseTopicPartition{Partition: p.Partition, ErrorCode: code})
			}
			out.Topics = append(out.Topics, rt)
		}
	})
}
