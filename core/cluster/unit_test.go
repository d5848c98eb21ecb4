package cluster

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

func TestPlace(t *testing.T) {
	for _, tc := range []struct {
		brokers                 []int32
		start, first, parts, rf int
		want                    [][]int32
	}{
		{[]int32{1, 2, 3}, 0, 0, 3, 3, [][]int32{{1, 2, 3}, {2, 3, 1}, {3, 1, 2}}},
		{[]int32{3, 1, 2}, 1, 0, 2, 2, [][]int32{{2, 3}, {3, 1}}}, // brokers are taken in id order
		{[]int32{10, 20, 30, 40}, 2, 1, 2, 1, [][]int32{{40}, {10}}},
	} {
		if got := Place(tc.brokers, tc.start, tc.first, tc.parts, tc.rf); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("Place(%v, start %d, first %d, %d, rf %d) = %v, want %v", tc.brokers, tc.start, tc.first, tc.parts, tc.rf, got, tc.want)
		}
	}
}

func TestElect(t *testing.T) {
	liveSet := func(ids ...int32) func(int32) bool { return func(id int32) bool { return slices.Contains(ids, id) } }
	p := &Partition{Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, Leader: 1}
	for _, tc := range []struct {
		name    string
		p       *Partition
		live    func(int32) bool
		unclean bool
		want    Election
	}{
		{"leader stays", p, liveSet(1, 2, 3), false, Election{1, []int32{1, 2, 3}, false}},
		{"follower leaves ISR", p, liveSet(1, 3), false, Election{1, []int32{1, 3}, false}},
		{"next in replica order", p, liveSet(2, 3), false, Election{2, []int32{2, 3}, false}},
		{"replica order, not ISR order", &Partition{Replicas: []int32{1, 2, 3}, ISR: []int32{1, 3, 2}, Leader: 1}, liveSet(2, 3), false, Election{2, []int32{3, 2}, false}},
		{"all gone: ISR kept, offline", p, liveSet(), false, Election{NoLeader, []int32{1, 2, 3}, false}},
		{"out of sync only: offline", &Partition{Replicas: []int32{1, 2, 3}, ISR: []int32{1}, Leader: 1}, liveSet(2, 3), false, Election{NoLeader, []int32{1}, false}},
		{"out of sync only: unclean", &Partition{Replicas: []int32{1, 2, 3}, ISR: []int32{1}, Leader: 1}, liveSet(3, 2), true, Election{2, []int32{2}, true}},
		{"unclean allowed but ISR member live", &Partition{Replicas: []int32{1, 2, 3}, ISR: []int32{1, 3}, Leader: 1}, liveSet(2, 3), true, Election{3, []int32{3}, false}},
		{"offline comes back", &Partition{Replicas: []int32{1, 2, 3}, ISR: []int32{1}, Leader: NoLeader}, liveSet(1), false, Election{1, []int32{1}, false}},
	} {
		if got := Elect(tc.p, tc.live, tc.unclean); got.Leader != tc.want.Leader || got.Unclean != tc.want.Unclean || !slices.Equal(got.ISR, tc.want.ISR) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

func TestImageGuards(t *testing.T) {
	im := NewImage()
	b := &Batch{Records: []Record{
		{RegisterBroker: &RegisterBroker{ID: 1}},
		{RegisterBroker: &RegisterBroker{ID: 2}},
		{Topic: &TopicRecord{Name: "t", ID: UUID{1}}},
		{Partition: &PartitionRecord{Topic: "t", Partition: 0, Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1}},
		{PartitionChange: &PartitionChange{Topic: "t", Partition: 0, ExpectEpoch: 0, Leader: 2, ISR: []int32{2}}},
		{PartitionChange: &PartitionChange{Topic: "t", Partition: 0, ExpectEpoch: 0, Leader: NoLeaderChange, ISR: []int32{1, 2}}},
		{PartitionChange: &PartitionChange{Topic: "t", Partition: 0, ExpectEpoch: 1, Leader: 1, ISR: []int32{2}}},
		{UnfenceBroker: &UnfenceBroker{ID: 1, Epoch: 7}},
		{UnfenceBroker: &UnfenceBroker{ID: 1, Epoch: 9}},
		{ProducerIDs: &ProducerIDsBlock{Start: 5, Len: 10}},
		{ProducerIDs: &ProducerIDsBlock{Start: 0, Len: 10}},
		{Topic: &TopicRecord{Name: "t", ID: UUID{2}}},
	}}
	errs, deltas := im.Apply(9, b)
	want := []error{nil, nil, nil, nil, nil, ErrStale, ErrInvalid, ErrStale, nil, ErrStale, nil, ErrExists}
	for i := range want {
		if !errors.Is(errs[i], want[i]) || (want[i] == nil) != (errs[i] == nil) {
			t.Errorf("record %d: err %v, want %v", i, errs[i], want[i])
		}
	}
	p := im.Partition("t", 0)
	if p.Leader != 2 || p.LeaderEpoch != 1 || p.PartitionEpoch != 1 || len(deltas) != 2 || im.NextProducerID != 10 || im.Live(2) || !im.Live(1) {
		t.Errorf("image: %s", im.Encode())
	}
}

func TestBatchRoundTrip(t *testing.T) {
	v := "true"
	b := &Batch{Proposer: 3, Seq: 9, Records: []Record{
		{RegisterBroker: &RegisterBroker{ID: 1, IncarnationID: UUID{0xff, 1}, Host: "h", Port: 9092}},
		{PartitionChange: &PartitionChange{Topic: "t", Leader: NoLeaderChange, ISR: []int32{1}, Unclean: true, Recovery: RecoveryRecovering}},
		{Config: &ConfigRecord{Topic: "t", Name: "unclean.leader.election.enable", Value: &v}},
	}}
	data := EncodeBatch(b)
	got, err := DecodeBatch(data)
	if err != nil || string(EncodeBatch(got)) != string(data) {
		t.Fatalf("round trip: %v\n%s\n%s", err, data, EncodeBatch(got))
	}
	for _, bad := range []string{"", "M", "M{", `M{"records":[{}]}`, `M{"records":[{"fence_broker":{},"unfence_broker":{}}]}`, `{"records":[]}`} {
		if _, err := DecodeBatch([]byte(bad)); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeBatch(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

func FuzzDecodeBatch(f *testing.F) {
	f.Add(EncodeBatch(&Batch{Records: []Record{{FenceBroker: &FenceBroker{ID: 1, Epoch: 2}}}}))
	f.Add([]byte(`M{"records":[{"partition":{"topic":"t","replicas":[1],"isr":[1],"leader":1}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := DecodeBatch(data)
		if err != nil {
			return
		}
		again, err := DecodeBatch(EncodeBatch(b))
		if err != nil || string(EncodeBatch(again)) != string(EncodeBatch(b)) {
			t.Fatalf("re-encoding %q: %v", data, err)
		}
		NewImage().Apply(1, b) // must not panic
	})
}

func FuzzDecodeImage(f *testing.F) {
	im := NewImage()
	im.Apply(4, &Batch{Records: []Record{{RegisterBroker: &RegisterBroker{ID: 1}}}})
	f.Add(im.Encode())
	f.Fuzz(func(t *testing.T, data []byte) {
		if im, err := DecodeImage(data); err == nil {
			if c := im.Clone(); !bytes.Equal(c.Encode(), im.Encode()) {
				t.Fatalf("clone %s differs from %s", c.Encode(), im.Encode())
			}
		}
	})
}

func TestClusterIDRecordAppliesOnce(t *testing.T) {
	im := NewImage()
	errs, _ := im.Apply(2, &Batch{Records: []Record{
		{ClusterID: &ClusterIDRecord{ID: ""}},
		{ClusterID: &ClusterIDRecord{ID: "first"}},
		{ClusterID: &ClusterIDRecord{ID: "second"}},
	}})
	if !errors.Is(errs[0], ErrInvalid) || errs[1] != nil || !errors.Is(errs[2], ErrExists) || im.ClusterID != "first" {
		t.Fatalf("errs %v, cluster id %q", errs, im.ClusterID)
	}
	if c := im.Clone(); c.ClusterID != "first" {
		t.Fatalf("cluster id does not survive a snapshot: %q", c.ClusterID)
	}
}

// A removal decided before its topic was deleted and created again under
// the same name changes nothing: it names the old topic's id.
func TestRemoveTopicRecordNamesTheID(t *testing.T) {
	im := NewImage()
	old, fresh := UUID{1}, UUID{2}
	apply := func(recs ...Record) []error {
		errs, _ := im.Apply(im.Index+1, &Batch{Records: recs})
		return errs
	}
	apply(Record{Topic: &TopicRecord{Name: "t", ID: old}})
	if errs := apply(Record{RemoveTopic: &RemoveTopicRecord{Name: "t", ID: old}}); errs[0] != nil {
		t.Fatal(errs[0])
	}
	apply(Record{Topic: &TopicRecord{Name: "t", ID: fresh}})
	if errs := apply(Record{RemoveTopic: &RemoveTopicRecord{Name: "t", ID: old}}); errs[0] == nil {
		t.Fatal("a stale removal deleted the new topic")
	}
	if im.Topics["t"] == nil || im.Topics["t"].ID != fresh {
		t.Fatalf("topic: %+v", im.Topics["t"])
	}
}

// TestCloneSharesNothing: changing a clone's brokers, topics, partitions
// and configs leaves the image it came from as it was.
func TestCloneSharesNothing(t *testing.T) {
	im := NewImage()
	im.Brokers[1] = &Broker{ID: 1, Host: "a"}
	im.Topics["t"] = &Topic{Name: "t", Configs: map[string]string{"k": "v"},
		Partitions: []*Partition{{Replicas: []int32{1, 2}, ISR: []int32{1, 2}, Leader: 1}}}
	im.Defaults = map[string]string{"d": "1"}
	before := im.Encode()
	c := im.Clone()
	c.Brokers[1].Host = "b"
	c.Brokers[2] = &Broker{ID: 2}
	c.Topics["t"].Configs["k"] = "w"
	c.Topics["t"].Partitions[0].ISR[0] = 9
	c.Topics["t"].Partitions[0].Leader = 2
	c.Topics["u"] = &Topic{Name: "u"}
	c.Defaults["d"] = "2"
	if after := im.Encode(); !bytes.Equal(before, after) {
		t.Fatalf("the original changed:\n%s\n%s", before, after)
	}
}

func TestElectPreferred(t *testing.T) {
	all := func(int32) bool { return true }
	not2 := func(b int32) bool { return b != 2 }
	for _, tc := range []struct {
		leader int32
		isr    []int32
		live   func(int32) bool
		want   bool
	}{
		{3, []int32{3, 2, 1}, all, true},   // the preferred replica 2 leads again
		{2, []int32{2, 3, 1}, all, false},  // it leads already
		{3, []int32{3, 1}, all, false},     // out of the ISR
		{3, []int32{3, 2, 1}, not2, false}, // fenced
	} {
		p := &Partition{Replicas: []int32{2, 3, 1}, ISR: tc.isr, Leader: tc.leader, PartitionEpoch: 7}
		ch := ElectPreferred("t", 0, p, tc.live)
		if (ch != nil) != tc.want {
			t.Fatalf("leader %d isr %v: change %+v, want one: %v", tc.leader, tc.isr, ch, tc.want)
		}
		if ch != nil && (ch.Leader != 2 || !ch.Preferred || ch.ISR != nil || ch.ExpectEpoch != 7) {
			t.Fatalf("change %+v: want leader 2, the ISR kept, guarded by epoch 7", ch)
		}
	}
}
