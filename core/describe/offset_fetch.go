package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// OffsetFetch (key 9): one group's (v0-7); the many-group form of v8+
// (KIP-709) is described generically.
func init() {
	describes(offsetFetchRequest)
	describes(offsetFetchResponse)
}

func offsetFetchRequest(m *kmsg.OffsetFetchRequest) string {
	if m.Version >= 8 {
		return describeGeneric(m)
	}
	var tps []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			tps = append(tps, fmt.Sprintf("%s-%d", t.Topic, p))
		}
	}
	if m.Topics == nil {
		tps = []string{"all"}
	}
	stable := ""
	if m.RequireStable {
		stable = " require_stable"
	}
	return fmt.Sprintf("OffsetFetch group=%s %s%s", m.Group, strings.Join(tps, ","), stable)
}

func offsetFetchResponse(m *kmsg.OffsetFetchResponse) string {
	if m.Version >= 8 {
		return describeGeneric(m)
	}
	var parts []string
	for _, t := range m.Topics {
		for _, p := range t.Partitions {
			parts = append(parts, fmt.Sprintf("%s-%d=%d%s", t.Topic, p.Partition, p.Offset, errField(p.ErrorCode)))
		}
	}
	return "OffsetFetch " + strings.Join(parts, " ") + errField(m.ErrorCode)
}
