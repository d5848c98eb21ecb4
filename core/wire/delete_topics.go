package wire

import "github.com/twmb/franz-go/pkg/kmsg"

// DeleteTopics (key 20): an error answer names every topic asked for, by
// name or id as the request named it.
func init() {
	errorAnswer(func(r *kmsg.DeleteTopicsRequest, out *kmsg.DeleteTopicsResponse, code int16) {
		for _, t := range DeleteTopicsTargets(r) {
			rt := kmsg.NewDeleteTopicsResponseTopic()
			rt.Topic, rt.TopicID, rt.ErrorCode = t.Topic, t.TopicID, code
			out.Topics = append(out.Topics, rt)
		}
	})
}

// DeleteTopicsTargets lists a DeleteTopics request's topics in one form
// whatever its version: v0-5 name them in TopicNames, v6+ by name or id
// in Topics (KIP-516). Topics come first, then TopicNames, each in order.
func DeleteTopicsTargets(r *kmsg.DeleteTopicsRequest) []kmsg.DeleteTopicsRequestTopic {
	targets := append([]kmsg.DeleteTopicsRequestTopic(nil), r.Topics...)
	for _, name := range r.TopicNames {
		targets = append(targets, kmsg.DeleteTopicsRequestTopic{Topic: &name})
	}
	return targets
}
