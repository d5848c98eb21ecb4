package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreateTopics (key 19): each topic with its partitions, replication
// factor and configs.
func init() {
	describes(createTopicsRequest)
	describes(createTopicsResponse)
}

func createTopicsRequest(m *kmsg.CreateTopicsRequest) string {
	var parts []string
	for _, t := range m.Topics {
		s := fmt.Sprintf("%s partitions=%d rf=%d", t.Topic, t.NumPartitions, t.ReplicationFactor)
		for _, c := range t.Configs {
			if c.Value != nil {
				s += fmt.Sprintf(" %s=%s", c.Name, *c.Value)
			}
		}
		parts = append(parts, s)
	}
	return "CreateTopics " + strings.Join(parts, "; ")
}

func createTopicsResponse(m *kmsg.CreateTopicsResponse) string {
	var parts []string
	for _, t := range m.Topics {
		parts = append(parts, t.Topic+errField(t.ErrorCode))
	}
	return "CreateTopics " + strings.Join(parts, "; ")
}
