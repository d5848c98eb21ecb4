package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListGroups (key 16): each group with its state (KIP-518).
func init() {
	describes(listGroupsRequest)
	describes(listGroupsResponse)
}

func listGroupsRequest(m *kmsg.ListGroupsRequest) string {
	return "ListGroups"
}

func listGroupsResponse(m *kmsg.ListGroupsResponse) string {
	var parts []string
	for _, g := range m.Groups {
		parts = append(parts, fmt.Sprintf("%s=%s", g.Group, orDash(g.GroupState)))
	}
	return "ListGroups " + strings.Join(parts, " ") + errField(m.ErrorCode)
}
