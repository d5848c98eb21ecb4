package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FindCoordinator (key 10): the keys asked for (one before v4, KIP-699)
// and the node coordinating each.
func init() {
	describes(findCoordinatorRequest)
	describes(findCoordinatorResponse)
}

func findCoordinatorRequest(m *kmsg.FindCoordinatorRequest) string {
	keys := m.CoordinatorKeys
	if m.Version < 4 {
		keys = []string{m.CoordinatorKey}
	}
	return fmt.Sprintf("FindCoordinator %s=%s", map[int8]string{0: "group", 1: "transactional_id"}[m.CoordinatorType], strings.Join(keys, ","))
}

func findCoordinatorResponse(m *kmsg.FindCoordinatorResponse) string {
	if m.Version < 4 {
		return fmt.Sprintf("FindCoordinator node=%d%s", m.NodeID, errField(m.ErrorCode))
	}
	var parts []string
	for _, c := range m.Coordinators {
		parts = append(parts, fmt.Sprintf("%s node=%d%s", c.Key, c.NodeID, errField(c.ErrorCode)))
	}
	return "FindCoordinator " + strings.Join(parts, "; ")
}
