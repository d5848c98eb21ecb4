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
		current map[string]string
		ops     []kmsg.IncrementalAlterConfigsRequestResourceConfig
		want    string
		err     *kerr.Error
	}{
		{"set and delete", map[string]string{"retention.ms": "5"},
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "segment.bytes", v("2048")), op(del, "retention.ms", nil)},
			"map[segment.bytes:2048]", nil},
		{"append to the default list", nil,
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(app, "cleanup.policy", v("delete"))},
			"map[cleanup.policy:delete]", nil},
		{"subtract the last item", map[string]string{"cleanup.policy": "delete"},
			[]kmsg.IncrementalAlterConfigsRequestResourceConfig{op(sub, "cleanup.policy", v("delete"))},
			"map[cleanup.policy:]", kerr.InvalidConfig}, // an empty policy is not valid
		{"unknown", nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "nope", v("1"))}, "", kerr.InvalidConfig},
		{"bad value", nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(set, "retention.ms", v("x"))}, "", kerr.InvalidConfig},
		{"append to a non-list", nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(app, "retention.ms", v("1"))}, "", kerr.InvalidConfig},
		{"unknown op", nil, []kmsg.IncrementalAlterConfigsRequestResourceConfig{op(9, "retention.ms", v("1"))}, "", kerr.InvalidRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := fmt.Sprint(c.current)
			next, err := Alter(c.current, TopicDef, effective, c.ops)
			if fmt.Sprint(c.current) != before {
				t.Errorf("current changed: %v, was %v", c.current, before)
			}
			switch {
			case c.err != nil && (err == nil || err.Kind != c.err):
				t.Errorf("error %v, want %v", err, c.err)
			case c.err == nil && err != nil:
				t.Errorf("error %v", err)
			case c.err == nil && fmt.Sprint(next) != c.want:
				t.Errorf("next %v, want %s", next, c.want)
			}
		})
	}
}
