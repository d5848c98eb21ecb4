package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// AlterError is why an alteration of configs is refused: a Kafka error
// (INVALID_CONFIG, INVALID_REQUEST) and its message.
type AlterError struct {
	Kind *kerr.Error
	Msg  string
}

func (e *AlterError) Error() string { return e.Msg }

func alterErrorf(kind *kerr.Error, format string, args ...any) *AlterError {
	return &AlterError{kind, fmt.Sprintf(format, args...)}
}

// Alter applies IncrementalAlterConfigs operations (KIP-339) to a
// resource's dynamic values and returns the values after them; current is
// not modified. lookup finds a setting of the resource's kind (TopicDef,
// BrokerDef); effective is a setting's value before the change when the
// resource sets none itself, for APPEND and SUBTRACT on lists. Every
// operation is checked (known, not read-only, a valid value) and nothing
// is returned but the error when one fails: a resource changes as a whole
// or not at all. The single broker and the cluster's controller both
// alter configs with it, so they accept and refuse the same requests.
func Alter(current map[string]string, lookup func(string) (*Def, bool), effective func(string) string,
	ops []kmsg.IncrementalAlterConfigsRequestResourceConfig) (map[string]string, *AlterError) {
	next := maps.Clone(current)
	if next == nil {
		next = map[string]string{}
	}
	for _, c := range ops {
		d, ok := lookup(c.Name)
		if !ok {
			return nil, alterErrorf(kerr.InvalidConfig, "unknown config %q", c.Name)
		}
		if d.ReadOnly {
			return nil, alterErrorf(kerr.InvalidConfig, "%s cannot be changed while the broker runs", c.Name)
		}
		val := ""
		if c.Value != nil {
			val = *c.Value
		}
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet:
			next[c.Name] = val
		case kmsg.IncrementalAlterConfigOpDelete:
			delete(next, c.Name)
		case kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract:
			if d.Type != List {
				return nil, alterErrorf(kerr.InvalidConfig, "%s is not a list", c.Name)
			}
			list, ok := next[c.Name]
			if !ok {
				list = effective(c.Name)
			}
			next[c.Name] = editList(list, val, c.Op == kmsg.IncrementalAlterConfigOpAppend)
		default:
			return nil, alterErrorf(kerr.InvalidRequest, "unknown operation %d", c.Op)
		}
		if v, ok := next[c.Name]; ok {
			if err := d.Check(v); err != nil {
				return nil, alterErrorf(kerr.InvalidConfig, "%v", err)
			}
		}
	}
	return next, nil
}

func editList(list, items string, add bool) string {
	var have []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			have = append(have, s)
		}
	}
	for _, it := range strings.Split(items, ",") {
		it = strings.TrimSpace(it)
		i := slices.Index(have, it)
		switch {
		case add && i < 0 && it != "":
			have = append(have, it)
		case !add && i >= 0:
			have = slices.Delete(have, i, i+1)
		}
	}
	return strings.Join(have, ",")
}

// LegacyAlterable refuses the resource types the legacy AlterConfigs does
// not serve: Kafka's ConfigAdminManager takes only TOPIC and BROKER there
// (GROUP configs are IncrementalAlterConfigs' alone), INVALID_REQUEST.
func LegacyAlterable(typ kmsg.ConfigResourceType) *AlterError {
	if typ == kmsg.ConfigResourceTypeTopic || typ == kmsg.ConfigResourceTypeBroker {
		return nil
	}
	return alterErrorf(kerr.InvalidRequest, "Unknown resource type %d", typ)
}
