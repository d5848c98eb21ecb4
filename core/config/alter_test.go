package config

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAlter: operations apply in order to a copy; any refused operation
// refuses the whole resource with its Kafka error.
func TestAlter(t *testing.T) {
	v := func(s string) *string { return &s }
	op := func(o kmsg.IncrementalAlterConfigOp, name string, val *string) kmsg.IncrementalAlterConfigsRequestResourceConfig {
		return kmsg.IncrementalAlterConfigsRequestResourceConfig{Op: o, Name: name, Value: val}
	}
	set, del, app, sub := kmsg.IncrementalAlterConfigOpSet, kmsg.IncrementalAlterConfigOpDelete,
		kmsg.IncrementalAlterConfigOpAppend, kmsg.IncrementalAlterConfigOpSubtract
	effective := func(name string) string { d, _ := TopicDef(name); return d.Default }
	for _, c := range []struct {
		name    string
		target  Target
		current map[string]string
		ops     []kmsg.IncrementalAlterConfigsRequestResourceConfig
		want    string
		err     *kerr.Error
		msg     string // the error's message, when it matters
	}{
		{"set and delete", TopicTarget, map[string]string{"retention.ms": "5"},
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "segment.bytes", v("2048")), op(del, "retention.ms", nil)},
			"map[segment.bytes:2048]", nil, ""},
		{"append to the default list", TopicTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(app, "cleanup.policy", v("delete"))},
			"map[cleanup.policy:delete]", nil, ""},
		{"subtract the last item", TopicTarget, map[string]string{"cleanup.policy": "delete"},
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(sub, "cleanup.policy", v("delete"))},
			"map[cleanup.policy:]", kerr.InvalidConfig, ""}, // an empty policy is not valid
		{"unknown", TopicTarget, nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "nope", v("1"))}, "", kerr.InvalidConfig, ""},
		{"bad value", TopicTarget, nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "retention.ms", v("x"))}, "", kerr.InvalidConfig, ""},
		{"append to a non-list", TopicTarget, nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(app, "retention.ms", v("1"))}, "", kerr.InvalidConfig, ""},
		{"unknown op", TopicTarget, nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(9, "retention.ms", v("1"))}, "", kerr.InvalidRequest, ""},

		// Broker settings, refused as Kafka's DynamicBrokerConfig refuses them.
		{"a Kafka setting Gregor keeps", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "sasl.kerberos.min.time.before.relogin", v("58000"))},
			"map[sasl.kerberos.min.time.before.relogin:58000]", nil, ""},
		{"a custom setting", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "my.own.setting", v("x"))},
			"map[my.own.setting:x]", nil, ""},
		{"read-only", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "node.id", v("7")), op(set, "log.dirs", v("/x"))},
			"", kerr.InvalidRequest, "Cannot update these configs dynamically: Set(log.dirs, node.id)"},
		{"a kept setting's type", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "num.io.threads", v("0"))},
			"", kerr.InvalidRequest, "Invalid value 0 for configuration num.io.threads: Value must be at least 1"},
		{"ssl without a listener", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "ssl.keystore.location", v("/k"))},
			"", kerr.InvalidRequest, "These security configs can be dynamically updated only per-listener using the listener prefix: Set(ssl.keystore.location)"},
		{"ssl with a listener", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "listener.name.external.ssl.keystore.location", v("/k"))},
			"map[listener.name.external.ssl.keystore.location:/k]", nil, ""},
		{"per-broker at the cluster level", ClusterTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "sasl.kerberos.min.time.before.relogin", v("58000"))},
			"", kerr.InvalidRequest, "Cannot update these configs at default cluster level, broker id must be specified: Set(sasl.kerberos.min.time.before.relogin)"},
		{"cluster-wide at the cluster level", ClusterTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "num.io.threads", v("4"))},
			"map[num.io.threads:4]", nil, ""},
		{"append to an unknown name", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(app, "my.own.setting", v("x"))},
			"", kerr.InvalidConfig, "Unknown config name: my.own.setting"},
		{"a name twice", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "num.io.threads", v("4")), op(del, "num.io.threads", nil)},
			"", kerr.InvalidRequest, "Error due to duplicate config keys"},
		{"set to null", BrokerTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "num.io.threads", nil)},
			"", kerr.InvalidRequest, "Null value not supported for : num.io.threads"},
		{"a topic setting Gregor keeps", TopicTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "preallocate", v("true"))},
			"map[preallocate:true]", nil, ""},
		{"an unknown topic setting", TopicTarget, nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "nope", v("1"))},
			"", kerr.InvalidConfig, "Unknown topic config name: nope"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := fmt.Sprint(c.current)
			next, err := Alter(c.current, c.target, effective, c.ops)
			if fmt.Sprint(c.current) != before {
				t.Errorf("current changed: %v, was %v", c.current, before)
			}
			switch {
			case c.err != nil && (err == nil || err.Kind != c.err):
				t.Errorf("error %v, want %v", err, c.err)
			case c.msg != "" && err.Msg != c.msg:
				t.Errorf("message %q, want %q", err.Msg, c.msg)
			case c.err == nil && err != nil:
				t.Errorf("error %v", err)
			case c.err == nil && fmt.Sprint(next) != c.want:
				t.Errorf("next %v, want %s", next, c.want)
			}
		})
	}
}
