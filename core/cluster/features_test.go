package cluster

import (
	"maps"
	"testing"
)

func TestBootstrapFeatures(t *testing.T) {
	apply := func(recs []Record) map[string]int16 {
		im := NewImage()
		if errs, _ := im.Apply(1, &Batch{Records: recs}); len(errs) > 0 {
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		}
		return im.Features
	}
	cases := []struct {
		name      string
		have      map[string]int16
		fresh     bool
		overrides map[string]int16
		want      map[string]int16
	}{
		{"new", nil, true, nil, map[string]int16{MetadataVersion: 25, GroupVersion: 1, TransactionVersion: 2}},
		{"new, formatted at tv 1", nil, true, map[string]int16{TransactionVersion: 1}, map[string]int16{MetadataVersion: 25, GroupVersion: 1, TransactionVersion: 1}},
		{"new, formatted at tv 0", nil, true, map[string]int16{TransactionVersion: 0}, map[string]int16{MetadataVersion: 25, GroupVersion: 1}},
		{"from before features", nil, false, map[string]int16{TransactionVersion: 2}, map[string]int16{MetadataVersion: 25, GroupVersion: 1}},
		{"complete", map[string]int16{MetadataVersion: 25, GroupVersion: 1, TransactionVersion: 1}, false, nil, nil},
	}
	for _, c := range cases {
		got := apply(BootstrapFeatures(c.have, c.fresh, c.overrides))
		if !maps.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	if CheckFeatureLevels(map[string]int16{TransactionVersion: 3}) == nil || CheckFeatureLevels(map[string]int16{"x": 1}) == nil {
		t.Error("an unsupported format level was accepted")
	}
	im := NewImage()
	if errs, _ := im.Apply(2, &Batch{Records: []Record{{FeatureLevel: &FeatureLevelRecord{Name: "x", Level: 1}}}}); errs[0] == nil {
		t.Error("a record for an unknown feature applied")
	}
}
