package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// ElectLeaders (key 43, KIP-460): an error answer carries code at the top
// and for every partition asked for.
func init() {
	errorAnswer(func(r *kmsg.ElectLeadersRequest, out *kmsg.ElectLeadersResponse, code int16) {
		out.ErrorCode = code
		for _, t := range r.Topics {
			rt := kmsg.NewElectLeadersResponseTopic()
			rt.Topic = t.Topic
			for _, p := range t.Partitions {
				rp := kmsg.NewElectLeadersResponseTopicPartition()
				rp.Partition, rp.ErrorCode = p, code
				rt.Partitions = append(rt.Partitions, rp)
			}
			out.Topics = append(out.Topics, rt)
		}
	})
}
