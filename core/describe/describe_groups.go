package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeGroups (key 15).
func init() {
	describes(describeGroupsRequest)
	describes(describeGroupsResponse)
}

func describeGroupsRequest(m *kmsg.DescribeGroupsRequest) string {
	return "DescribeGroups " + strings.Join(m.Groups, ",")
}

func describeGroupsResponse(m *kmsg.DescribeGroupsResponse) string {
	var parts []string
	for _, g := range m.Groups {
		parts = append(parts, fmt.Sprintf("%s state=%s protocol=%s members=%d%s", g.Group, g.State, orDash(g.Protocol), len(g.Members), errField(g.ErrorCode)))
	}
	return "DescribeGroups " + strings.Join(parts, "; ")
}
