package describe

import (
	"fmt"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// IncrementalAlterConfigs (key 44, KIP-339): group configs (the
// simulator's group-config command, KIP-848); other resources are
// described generically.
func init() { describes(groupConfigs) }

// groupConfigs renders an IncrementalAlterConfigs of group configs; a
// request of none, or naming another resource, is described generically.
func groupConfigs(m *kmsg.IncrementalAlterConfigsRequest) string {
	if len(m.Resources) == 0 {
		return describeGeneric(m)
	}
	var b strings.Builder
	b.WriteString("IncrementalAlterConfigs")
	for _, r := range m.Resources {
		if r.ResourceType != kmsg.ConfigResourceTypeGroupConfig {
			return describeGeneric(m)
		}
		fmt.Fprintf(&b, " group=%s", r.ResourceName)
		for _, c := range r.Configs {
			if c.Op == kmsg.IncrementalAlterConfigOpDelete {
				fmt.Fprintf(&b, " %s=(delete)", c.Name)
			} else {
				fmt.Fprintf(&b, " %s=%s", c.Name, deref(c.Value))
			}
		}
	}
	return b.String()
}
