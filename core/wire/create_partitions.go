package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// CreatePartitions (key 37, KIP-195): an error answer names every topic
// asked for.
func init() {
	errorAnswer(func(r *kmsg.CreatePartitionsRequest, out *kmsg.CreatePartitionsResponse, code int16) {
		for _, t := range r.Topics {
			rt := kmsg.NewCreatePartitionsResponseTopic()
			rt.Topic, rt.ErrorCode = t.Topic, code
			out.Topics = append(out.Topics, rt)
		}
	})
}
