package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// CreateTopics (key 19): an error answer names every topic asked for.
func init() {
	errorAnswer(func(r *kmsg.CreateTopicsRequest, out *kmsg.CreateTopicsResponse, code int16) {
		for _, t := range r.Topics {
			rt := kmsg.NewCreateTopicsResponseTopic()
			rt.Topic, rt.ErrorCode = t.Topic, code
			out.Topics = append(out.Topics, rt)
		}
	})
}
