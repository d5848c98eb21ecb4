package config

import "testing"

func TestParseShareReset(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind string
		ms   int64
	}{
		{"earliest", "earliest", 0},
		{"LATEST", "latest", 0},
		{"by_duration:PT1H", "by_duration", 3600_000},
		{"by_duration:P1DT2H3M4.5S", "by_duration", 86400_000 + 2*3600_000 + 3*60_000 + 4500},
		{"BY_DURATION:pt0s", "by_duration", 0},
		{"by_duration:P1DT1H30M", "by_duration", 86400_000 + 5400_000},
		{"by_duration:PT0,5S", "by_duration", 500},
		{"by_duration:P-1DT25H", "by_duration", 3600_000},
		{"by_duration:PT1M2H", "", 0},
		{"by_duration:PT1.5H", "", 0},
		{"by_duration:PT1e3S", "", 0},
		{"by_duration:PTS", "", 0},
		{"by_duration:PT-1H", "", 0},
		{"by_duration:-PT1H", "", 0},
		{"by_duration:P", "", 0},
		{"by_duration:PT", "", 0},
		{"by_duration:P1DT", "", 0},
		{"by_duration:1h", "", 0},
		{"by_duration:", "", 0},
		{"oldest", "", 0},
		{"", "", 0},
	} {
		r, err := ParseShareReset(c.in)
		if c.kind == "" {
			if err == nil {
				t.Errorf("%q: accepted as %+v", c.in, r)
			}
			continue
		}
		if err != nil || r.Kind != c.kind || r.Ms != c.ms {
			t.Errorf("%q: %+v %v, want %s %d", c.in, r, err, c.kind, c.ms)
		}
	}
	d, _ := GroupDef("share.auto.offset.reset")
	if err := d.Check("by_duration:PT-5M"); err == nil {
		t.Error("a negative duration passes the group config's check")
	}
}
