package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreatePartitions (key 37, KIP-195).
func init() {
	describes(createPartitionsRequest)
	describes(createPartitionsResponse)
}

func createPartitionsRequest(m *kmsg.CreatePartitionsRequest) string {
	var parts []string
	for _, t := range m.Topics {
		parts = append(parts, fmt.Sprintf("%s count=%d", t.Topic, t.Count))
	}
	return "CreatePartitions " + strings.Join(parts, "; ")
}

func createPartitionsResponse(m *kmsg.CreatePartitionsResponse) string {
	var parts []string
	for _, t := range m.Topics {
		parts = append(parts, t.Topic+errField(t.ErrorCode))
	}
	return "CreatePartitions " + strings.Join(parts, "; ")
}
