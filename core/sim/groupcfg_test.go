package sim

import (
	"strings"
	"testing"
)

// group-config gives one share group share.auto.offset.reset=earliest on
// a broker whose groups start at the latest offset: that group's member
// acquires the records produced before it joined; a bad value is refused.
func TestGroupConfigCommand(t *testing.T) {
	out := run(1, []string{
		"broker",
		"topic jobs partitions=1",
		"producer p1 acks=1",
		"produce p1 jobs partition=0 value=job count=3",
		"group-config workers share.auto.offset.reset=oldest",
		"group-config workers share.auto.offset.reset=earliest",
		"share join w1 group=workers topics=jobs",
		"share poll w1",
	})
	if !strings.Contains(out, "IncrementalAlterConfigs group=workers share.auto.offset.reset=earliest") || !strings.Contains(out, "INVALID_CONFIG") {
		t.Errorf("share.auto.offset.reset=oldest was not refused:\n%s", out)
	}
	if !strings.Contains(out, "acquired") || !strings.Contains(out, "0..2") {
		t.Errorf("w1 did not acquire offsets 0..2:\n%s", out)
	}
}
