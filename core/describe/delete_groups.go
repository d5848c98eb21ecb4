package describe

import (
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteGroups (key 42).
func init() {
	describes(deleteGroupsRequest)
	describes(deleteGroupsResponse)
}

func deleteGroupsRequest(m *kmsg.DeleteGroupsRequest) string {
	return "DeleteGroups " + strings.Join(m.Groups, ",")
}

func deleteGroupsResponse(m *kmsg.DeleteGroupsResponse) string {
	var parts []string
	for _, g := range m.Groups {
		parts = append(parts, g.Group+" "+ErrorName(g.ErrorCode))
	}
	return "DeleteGroups " + strings.Join(parts, ", ")
}
