package describe

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/group/assign"
)

// assignment decodes a ConsumerProtocolAssignment as T1[0 1] T2[3], "-"
// when empty.
func assignment(b []byte) string {
	tps, err := assign.DecodeAssignment(b)
	if err != nil {
		return fmt.Sprintf("<%d bytes>", len(b))
	}
	if len(tps) == 0 {
		return "-"
	}
	return strings.TrimPrefix(assign.Assignment{"": tps}.String(), ": ")
}

func memberName(id string, instance *string) string {
	if instance != nil {
		return fmt.Sprintf("%s(instance=%s)", orDash(id), *instance)
	}
	return id
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
