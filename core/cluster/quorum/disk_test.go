package quorum

import (
	"testing"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"

	"github.com/gregor-kafka/gregor/core/store"
)

// TestDiskTornTail checks that a log torn mid-frame by a crash loads up to
// the last whole entry, and that entries rewritten at an index replace the
// old suffix as they did in raft.
func TestDiskTornTail(t *testing.T) {
	mem := store.NewMem()
	d, err := openDisk(mem, DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	snap := &pb.Snapshot{Metadata: &pb.SnapshotMetadata{Index: new(uint64(1)), Term: new(uint64(1)), ConfState: &pb.ConfState{Voters: []uint64{1}}}}
	ent := func(i, term uint64) *pb.Entry {
		return &pb.Entry{Index: new(i), Term: new(term), Data: []byte{byte(i)}}
	}
	ms := newMS(t, snap)
	if err := d.saveSnapshot(snap, ms); err != nil {
		t.Fatal(err)
	}
	must(t, d.appendEntries([]*pb.Entry{ent(2, 1), ent(3, 1), ent(4, 1)}))
	must(t, d.appendEntries([]*pb.Entry{ent(3, 2)})) // a new leader overwrote 3..
	must(t, d.sync())
	must(t, d.log.Append([]byte{0, 0, 0, 9, 1})) // torn frame
	must(t, d.log.Sync())
	must(t, d.close())

	d2, err := openDisk(mem, DefaultDir)
	if err != nil {
		t.Fatal(err)
	}
	ms2 := newMS(t, nil)
	if fresh, err := d2.load(ms2); fresh || err != nil {
		t.Fatalf("load: fresh %v, %v", fresh, err)
	}
	last, _ := ms2.LastIndex()
	term, _ := ms2.Term(3)
	if last != 3 || term != 2 {
		t.Fatalf("last %d, term at 3 = %d; want 3 and 2", last, term)
	}
}

func newMS(t *testing.T, snap *pb.Snapshot) *raft.MemoryStorage {
	ms := raft.NewMemoryStorage()
	if snap != nil {
		must(t, ms.ApplySnapshot(snap))
	}
	return ms
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
