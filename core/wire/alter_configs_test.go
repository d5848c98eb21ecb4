package wire

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestAlterConfigsOps: a legacy AlterConfigs resource becomes the deletes
// of what it leaves out (in name order) and the sets of what it lists
// (in request order); a null value is left out.
func TestAlterConfigsOps(t *testing.T) {
	v := func(s string) *string { return &s }
	rr := kmsg.NewAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeTopic, "t"
	rr.Configs = []kmsg.AlterConfigsRequestResourceConfig{
		{Name: "segment.bytes", Value: v("2048")},
		{Name: "retention.ms", Value: v("1000")},
		{Name: "flush.ms", Value: nil},
	}
	current := map[string]string{"retention.ms": "5", "max.message.bytes": "100", "flush.ms": "9", "cleanup.policy": "delete"}
	got := AlterConfigsOps(current, &rr)
	if got.ResourceType != rr.ResourceType || got.ResourceName != "t" {
		t.Errorf("resource %v %q, want %v t", got.ResourceType, got.ResourceName, rr.ResourceType)
	}
	var ops []string
	for _, c := range got.Configs {
		val := "null"
		if c.Value != nil {
			val = *c.Value
		}
		ops = append(ops, fmt.Sprintf("%v %s=%s", c.Op, c.Name, val))
	}
	want := []string{
		"DELETE cleanup.policy=null", "DELETE flush.ms=null", "DELETE max.message.bytes=null",
		"SET segment.bytes=2048", "SET retention.ms=1000",
	}
	if fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("ops\n%v\nwant\n%v", ops, want)
	}
}
