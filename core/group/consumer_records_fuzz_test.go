package group

import (
	"encoding/binary"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/record"
)

type fuzzTopics struct{}

func (fuzzTopics) Topic(name string) ([16]byte, int32, bool) {
	if name == "t" {
		return [16]byte{1}, 4, true
	}
	return [16]byte{}, 0, false
}

func (fuzzTopics) TopicByID(id [16]byte) (string, int32, bool) {
	if id == [16]byte{1} {
		return "t", 4, true
	}
	return "", 0, false
}

func (fuzzTopics) Names() []string { return []string{"t"} }

type discardLog struct{}

func (discardLog) Append(int32, record.Batch) error { return nil }

// FuzzReplayConsumer: any KIP-848 record, whole or cut short, replays
// without a panic, and a group it builds encodes and replays to the same
// records.
func FuzzReplayConsumer(f *testing.F) {
	for _, typ := range []int16{3, 5, 6, 7, 8} {
		members := []string{"m"}
		if typ == 3 || typ == 6 {
			members = nil
		}
		key := consumerKey(typ, "g", members...)
		f.Add(key, []byte{0, 0, 0, 0, 0, 1, 0})
	}
	m := &consumerMember{id: "m", topics: []string{"t"}, regex: "", clientID: "c", epoch: 3, prevEpoch: 2,
		classic: &classicInfo{sessionTimeout: 10, protocols: []kmsg.JoinGroupRequestProtocol{{Name: "range", Metadata: []byte{1}}}}}
	c := New(Config{Topics: fuzzTopics{}, Log: discardLog{}}, 0)
	g := c.group("g", true)
	g.typ, g.cg = Consumer, &consumerGroup{epoch: 3, assignmentEpoch: 3, members: map[string]*consumerMember{"m": m}}
	for _, r := range c.consumerState(g) {
		f.Add(r.key, r.value)
	}
	f.Fuzz(func(t *testing.T, key, value []byte) {
		if len(key) >= 2 && binary.BigEndian.Uint16(key) > 8 {
			return
		}
		c := New(Config{Topics: fuzzTopics{}, Log: discardLog{}}, 0)
		c.Replay(0, key, value)
		g := c.groups["g"]
		if g == nil || g.cg == nil {
			return
		}
		first := c.consumerState(g)
		d := New(Config{Topics: fuzzTopics{}, Log: discardLog{}}, 0)
		for _, r := range first {
			d.Replay(0, r.key, r.value)
		}
		second := d.consumerState(d.groups["g"])
		if len(first) != len(second) {
			t.Fatalf("%d records, %d after a replay", len(first), len(second))
		}
		for i := range first {
			if string(first[i].key) != string(second[i].key) || string(first[i].value) != string(second[i].value) {
				t.Fatalf("record %d changed across a replay:\n%x %x\n%x %x", i, first[i].key, first[i].value, second[i].key, second[i].value)
			}
		}
	})
}
