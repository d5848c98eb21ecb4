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

// Target is the kind of resource an alteration changes.
type Target int8

const (
	// TopicTarget is a topic's overrides.
	TopicTarget Target = iota
	// BrokerTarget is one broker's own settings (resource name: its id).
	BrokerTarget
	// ClusterTarget is the cluster-wide broker defaults (resource name "").
	ClusterTarget
	// GroupTarget is a group's configs (KIP-848, KIP-932; group.go).
	GroupTarget
)

// sslPerListener are the SSL settings Kafka changes at run time only per
// listener, as listener.name.<listener>.<setting> (SslConfigs'
// RECONFIGURABLE_CONFIGS).
var sslPerListener = []string{"ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password",
	"ssl.key.password", "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password",
	"ssl.keystore.certificate.chain", "ssl.keystore.key", "ssl.truststore.certificates"}

// clusterListenerSettings are the listener settings that may be set for
// every broker at once even with a listener prefix.
var clusterListenerSettings = []string{"max.connections", "max.connection.creation.rate", "num.network.threads"}

// listenerBase is the setting a listener.name.<listener>.<setting> name
// overrides, or "".
func listenerBase(name string) string {
	rest, ok := strings.CutPrefix(name, "listener.name.")
	if !ok {
		return ""
	}
	_, base, _ := strings.Cut(rest, ".")
	return base
}

// Alter applies IncrementalAlterConfigs operations (KIP-339) to a
// resource's dynamic values and returns the values after them; current is
// not modified. effective is a setting's value before the change when the
// resource sets none itself, for APPEND and SUBTRACT on lists. Nothing is
// returned but the error when an operation is refused: a resource changes
// as a whole or not at all. The single broker and the cluster's
// controller both alter configs with it, so they accept and refuse the
// same requests.
//
// What is refused, and with which error and message, is what Kafka's
// ConfigAdminManager and DynamicBrokerConfig refuse: a name twice, a null
// value to set (INVALID_REQUEST); APPEND or SUBTRACT on a name Kafka does
// not know or that is not a list (INVALID_CONFIG); for a topic, a name
// that is not a topic setting or an invalid value (INVALID_CONFIG); for a
// broker, a read-only setting, an SSL setting without a listener prefix,
// an invalid value, and at the cluster level a per-broker setting
// (INVALID_REQUEST, as Kafka's KAFKA-13609 keeps it). A broker name Kafka
// does not know is kept as it is: Kafka stores custom broker settings.
func Alter(current map[string]string, target Target, effective func(string) string,
	ops []kmsg.IncrementalAlterConfigsRequestResourceConfig) (map[string]string, *AlterError) {
	lookup := map[Target]func(string) (*Def, bool){TopicTarget: TopicDef, GroupTarget: GroupDef}[target]
	if lookup == nil {
		lookup = BrokerDef
	}
	seen := map[string]bool{}
	var nulls []string
	for _, c := range ops {
		if seen[c.Name] {
			return nil, alterErrorf(kerr.InvalidRequest, "Error due to duplicate config keys")
		}
		seen[c.Name] = true
		if c.Op != kmsg.IncrementalAlterConfigOpDelete && c.Value == nil {
			nulls = append(nulls, c.Name)
		}
	}
	if len(nulls) > 0 {
		return nil, alterErrorf(kerr.InvalidRequest, "Null value not supported for : %s", strings.Join(nulls, ", "))
	}
	next := maps.Clone(current)
	if next == nil {
		next = map[string]string{}
	}
	for _, c := range ops {
		switch c.Op {
		case kmsg.IncrementalAlterConfigOpSet:
			next[c.Name] = *c.Value
		case kmsg.IncrementalAlterConfigOpDelete:
			delete(next, c.Name)
		case kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract:
			d, ok := lookup(c.Name)
			if !ok {
				return nil, alterErrorf(kerr.InvalidConfig, "Unknown config name: %s", c.Name)
			}
			verb := "append"
			if c.Op == kmsg.IncrementalAlterConfigOpSubtract {
				verb = "subtract"
			}
			if d.Type != List {
				return nil, alterErrorf(kerr.InvalidConfig, "Config value %s is not allowed for config key: %s", verb, c.Name)
			}
			list, ok := next[c.Name]
			if !ok {
				list = effective(c.Name)
			}
			next[c.Name] = editList(list, *c.Value, c.Op == kmsg.IncrementalAlterConfigOpAppend)
		default:
			return nil, alterErrorf(kerr.InvalidRequest, "Unknown operations type %d", c.Op)
		}
	}
	var changed []string // the names the operations leave set
	for _, c := range ops {
		if _, ok := next[c.Name]; ok {
			changed = append(changed, c.Name)
		}
	}
	switch target {
	case TopicTarget:
		return next, checkValues(next, changed, TopicDef, "Unknown topic config name: %s")
	case GroupTarget:
		return next, checkValues(next, changed, GroupDef, "Unknown group config name: %s")
	}
	return next, checkBroker(next, changed, target == ClusterTarget)
}

// checkValues refuses what Kafka's LogConfig.validate (and GroupConfig's)
// refuses: a name lookup does not know, worded by unknown, or an invalid
// value.
func checkValues(next map[string]string, changed []string, lookup func(string) (*Def, bool), unknown string) *AlterError {
	for _, name := range changed {
		d, ok := lookup(name)
		if !ok {
			return alterErrorf(kerr.InvalidConfig, unknown, name)
		}
		if err := d.Check(next[name]); err != nil {
			return alterErrorf(kerr.InvalidConfig, "%v", err)
		}
	}
	return nil
}

// checkBroker refuses what Kafka's DynamicBrokerConfig.validateConfigs
// refuses, in its order.
func checkBroker(next map[string]string, changed []string, clusterWide bool) *AlterError {
	var readOnly, unprefixed, perBroker []string
	for _, name := range changed {
		// A listener.name.<listener>.<setting> name is its setting's,
		// for one listener: always per broker but for a few.
		base, prefixed := listenerBase(name), true
		if base == "" {
			base, prefixed = name, false
		}
		d, known := BrokerDef(base)
		switch {
		case !prefixed && known && d.ReadOnly:
			readOnly = append(readOnly, name)
		case !prefixed && slices.Contains(sslPerListener, name):
			unprefixed = append(unprefixed, name)
		}
		if prefixed && !slices.Contains(clusterListenerSettings, base) || !prefixed && known && d.PerBroker {
			perBroker = append(perBroker, name)
		}
	}
	if len(readOnly) > 0 {
		return alterErrorf(kerr.InvalidRequest, "Cannot update these configs dynamically: %s", scalaSet(readOnly))
	}
	if len(unprefixed) > 0 {
		return alterErrorf(kerr.InvalidRequest, "These security configs can be dynamically updated only per-listener using the listener prefix: %s", scalaSet(unprefixed))
	}
	for _, name := range changed {
		base := listenerBase(name)
		if base == "" {
			base = name
		}
		if d, ok := BrokerDef(base); ok {
			if err := d.Check(next[name]); err != nil {
				return alterErrorf(kerr.InvalidRequest, "%v", err)
			}
		}
	}
	if clusterWide && len(perBroker) > 0 {
		return alterErrorf(kerr.InvalidRequest, "Cannot update these configs at default cluster level, broker id must be specified: %s", scalaSet(perBroker))
	}
	return nil
}

// scalaSet writes names as Kafka's messages print a Scala set, sorted.
func scalaSet(names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return "Set(" + strings.Join(s, ", ") + ")"
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
