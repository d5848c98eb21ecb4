package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Metadata (key 3): the topics asked for; the answer with each
// partition's leader when there are several brokers.
func init() {
	describes(metadataRequest)
	describes(metadataResponse)
}

func metadataRequest(m *kmsg.MetadataRequest) string {
	if m.Topics == nil {
		return "Metadata all topics"
	}
	var names []string
	for _, t := range m.Topics {
		if t.Topic != nil {
			names = append(names, *t.Topic)
		}
	}
	return "Metadata " + strings.Join(names, ",")
}

func metadataResponse(m *kmsg.MetadataResponse) string {
	var parts []string
	for _, t := range m.Topics {
		name := "?"
		if t.Topic != nil {
			name = *t.Topic
		}
		s := fmt.Sprintf("%s partitions=%d%s", name, len(t.Partitions), errField(t.ErrorCode))
		if len(m.Brokers) > 1 {
			// Several brokers: where each partition is led.
			var ls []string
			for _, p := range t.Partitions {
				leader := fmt.Sprintf("b%d", p.Leader)
				if p.Leader < 0 {
					leader = "none"
				}
				ls = append(ls, fmt.Sprintf("%d:%s", p.Partition, leader))
			}
			s += " leaders=[" + strings.Join(ls, " ") + "]"
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("Metadata brokers=%d %s", len(m.Brokers), strings.Join(parts, "; "))
}
