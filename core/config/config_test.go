package config

import (
	"errors"
	"testing"
)

func TestTopicResolution(t *testing.T) {
	b := NewBroker()
	if v, src, _ := b.Topic(nil, "retention.ms"); v != "604800000" || src != Default {
		t.Fatalf("default retention.ms = %s (%d)", v, src)
	}
	// log.retention.hours is a synonym in hours; it falls behind
	// log.retention.ms, as in Kafka.
	if err := b.SetStatic("log.retention.hours", "2"); err != nil {
		t.Fatal(err)
	}
	if v, src, syns := b.Topic(nil, "retention.ms"); v != "7200000" || src != StaticBroker || syns[0].Name != "log.retention.hours" {
		t.Fatalf("from hours: %s (%d) %+v", v, src, syns)
	}
	if err := b.SetStatic("log.retention.ms", "1000"); err != nil {
		t.Fatal(err)
	}
	if v, _, syns := b.Topic(nil, "retention.ms"); v != "1000" || len(syns) != 3 {
		t.Fatalf("ms beats hours: %s %+v", v, syns)
	}
	b.Dynamic["log.retention.ms"] = "5000"
	if v, src, _ := b.Topic(nil, "retention.ms"); v != "5000" || src != DynamicDefaultBroker {
		t.Fatalf("dynamic beats static: %s (%d)", v, src)
	}
	if v, src, _ := b.Topic(map[string]string{"retention.ms": "42"}, "retention.ms"); v != "42" || src != DynamicTopic {
		t.Fatalf("topic override wins: %s (%d)", v, src)
	}
}

func TestSetStatic(t *testing.T) {
	b := NewBroker()
	// A topic name on the command line stands for its broker default.
	if err := b.SetStatic("segment.bytes", "4096"); err != nil {
		t.Fatal(err)
	}
	if b.Static["log.segment.bytes"] != "4096" {
		t.Fatalf("alias not applied: %+v", b.Static)
	}
	cases := []struct {
		name, value string
		want        error
	}{
		{"no.such.setting", "1", ErrUnknown},
		{"num.partitions", "zero", ErrInvalid},
		{"num.partitions", "0", ErrInvalid},
		{"auto.create.topics.enable", "yes", ErrInvalid},
		{"log.message.timestamp.type", "WallClock", ErrInvalid},
		{"log.segment.bytes", "13", ErrInvalid},
	}
	for _, c := range cases {
		if err := b.SetStatic(c.name, c.value); !errors.Is(err, c.want) {
			t.Errorf("%s=%s: got %v, want %v", c.name, c.value, err, c.want)
		}
	}
}

func TestParseProperties(t *testing.T) {
	got, err := ParseProperties("# comment\n! also\nnum.partitions=3\n log.dirs : /tmp/x \nurl=http://a:b\n\n" +
		"jaas=Module required \\\n    a=\"1\" \\\n\tb=\"2\";\npath=C:\\\\\nnext=x\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"num.partitions": "3", "log.dirs": "/tmp/x", "url": "http://a:b",
		"jaas": `Module required a="1" b="2";`, "path": `C:\\`, "next": "x"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, err := ParseProperties("just words"); err == nil {
		t.Fatal("a line without = or : must be an error")
	}
}

func TestEveryDefIsDocumentedAndValid(t *testing.T) {
	for _, defs := range [][]Def{TopicDefs(), BrokerDefs()} {
		for _, d := range defs {
			if d.Doc == "" || d.Type == 0 {
				t.Errorf("%s: missing doc or type", d.Name)
			}
			if d.Default != "" {
				if err := d.Check(d.Default); err != nil {
					t.Errorf("%s: default fails its own check: %v", d.Name, err)
				}
			}
			if d.Topic && !d.Kept && len(d.Synonyms) == 0 {
				t.Errorf("%s: topic setting without a broker synonym", d.Name)
			}
		}
	}
}
