package group

import (
	"encoding/binary"
	"testing"

	"github.com/gregor-kafka/gregor/core/share"
)

// shareCoordinator is a coordinator with a share engine, over a log
// that discards.
func shareCoordinator() *Coordinator {
	return New(Config{Topics: fuzzTopics{}, Log: discardLog{}, Share: share.New(share.Config{Topics: fuzzTopics{}}, 0)}, 0)
}

// FuzzReplayShare: any share group record, whole or cut short, replays
// without a panic, and a group it builds encodes and replays to the same
// records (the seeds are a group's records as StoreShare writes them).
func FuzzReplayShare(f *testing.F) {
	c := shareCoordinator()
	g := c.cfg.Share.LoadGroup("g")
	g.Epoch, g.AssignmentEpoch = 3, 3
	g.Assigned[share.TP{TopicID: [16]byte{1}, Partition: 2}] = true
	m := c.cfg.Share.LoadMember(g, "m")
	m.ClientID, m.Rack, m.Topics, m.Epoch, m.PrevEpoch = "c", "r", []string{"t"}, 3, 2
	m.Assigned["t"] = []int32{0, 2}
	for _, r := range c.shareState(g) {
		f.Add(r.key, r.value)
	}
	f.Fuzz(func(t *testing.T, key, value []byte) {
		if len(key) < 2 || !isShareRecord(key) {
			return
		}
		c := shareCoordinator()
		c.Replay(0, key, value)
		g := c.cfg.Share.Group("g")
		if g == nil {
			return
		}
		first := c.shareState(g)
		d := shareCoordinator()
		for _, r := range first {
			d.Replay(0, r.key, r.value)
		}
		second := d.shareState(d.cfg.Share.Group("g"))
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

// TestShareRecordsReplayEqual: a share group's records, replayed in
// order, rebuild an equal group: the same records again, epochs, members
// and the initialized partitions.
func TestShareRecordsReplayEqual(t *testing.T) {
	c := shareCoordinator()
	g := c.cfg.Share.LoadGroup("g")
	g.Epoch, g.AssignmentEpoch = 5, 4
	g.Assigned[share.TP{TopicID: [16]byte{1}, Partition: 1}] = true
	g.Assigned[share.TP{TopicID: [16]byte{1}, Partition: 3}] = true
	m := c.cfg.Share.LoadMember(g, "m")
	m.ClientID, m.ClientHost, m.Topics, m.Epoch, m.PrevEpoch = "c", "/10.0.0.1", []string{"t"}, 5, 4
	m.Assigned["t"] = []int32{1, 3}
	recs := c.shareState(g)
	if len(recs) != 6 {
		t.Fatalf("%d records, want 6 (types 10, 11, 15, 13, 12, 14)", len(recs))
	}
	for i, want := range []int16{10, 11, 15, 13, 12, 14} {
		if typ := int16(binary.BigEndian.Uint16(recs[i].key)); typ != want {
			t.Errorf("record %d is type %d, want %d", i, typ, want)
		}
	}
	d := shareCoordinator()
	for _, r := range recs {
		d.Replay(0, r.key, r.value)
	}
	h := d.cfg.Share.Group("g")
	if h == nil || h.Epoch != 5 || h.AssignmentEpoch != 4 || len(h.Assigned) != 2 || len(h.Members()) != 1 {
		t.Fatalf("replayed group: %+v", h)
	}
	hm := h.Members()[0]
	if hm.ID != "m" || hm.ClientHost != "/10.0.0.1" || hm.Epoch != 5 || hm.PrevEpoch != 4 || len(hm.Assigned["t"]) != 2 {
		t.Fatalf("replayed member: %+v", hm)
	}
	for i, r := range d.shareState(h) {
		if string(r.key) != string(recs[i].key) || string(r.value) != string(recs[i].value) {
			t.Fatalf("record %d differs after the replay", i)
		}
	}
	// The group's tombstone deletes it; the other tombstones after it
	// find nothing.
	d.Replay(0, consumerKey(shareGroupType, "g"), nil)
	d.Replay(0, consumerKey(shareCurrentType, "g", "m"), nil)
	if d.cfg.Share.Group("g") != nil || len(d.shareWritten) != 0 {
		t.Fatal("the group outlived its tombstone")
	}
}
