package wire

import "github.com/twmb/franz-go/pkg/kmsg"

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
