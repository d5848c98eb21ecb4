package describe

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// DeleteTopics (key 20): topics by name, or by id (KIP-516).
func init() {
	describes(deleteTopicsRequest)
	describes(deleteTopicsResponse)
}

func deleteTopicsRequest(m *kmsg.DeleteTopicsRequest) string {
	var parts []string
	for _, t := range wire.DeleteTopicsTargets(m) {
		parts = append(parts, topicOrID(t.Topic, t.TopicID))
	}
	return "DeleteTopics " + strings.Join(parts, "; ")
}

func deleteTopicsResponse(m *kmsg.DeleteTopicsResponse) string {
	var parts []string
	for _, t := range m.Topics {
		parts = append(parts, topicOrID(t.Topic, t.TopicID)+errField(t.ErrorCode))
	}
	return "DeleteTopics " + strings.Join(parts, "; ")
}
