package quorum

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path"

	"github.com/gregor-kafka/gregor/core/cluster"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"

	"github.com/gregor-kafka/gregor/core/store"
)

// DefaultDir is where the metadata log lives in a node's storage: Kafka's
// KRaft keeps it in the partition directory __cluster_metadata-0.
const DefaultDir = cluster.MetadataTopic + "-0"

// disk persists raft's state through a store.Storage, next to the
// raft.MemoryStorage that raft reads from:
//
//	snapshot   the latest snapshot (raftpb.Snapshot), replaced whole
//	hardstate  term, vote and commit (raftpb.HardState), replaced whole
//	log        entries after the snapshot: [4-byte length][raftpb.Entry]...
//
// An entry appended again at an index already in the log (a new leader
// overwrote a suffix) is appended after the old one; loading replays the
// frames in order through MemoryStorage.Append, which truncates the same
// way raft did. A snapshot rewrites the log with only the entries after it.
type disk struct {
	st  store.Storage
	dir string
	log store.File
}

func openDisk(st store.Storage, dir string) (*disk, error) {
	if err := st.MkdirAll(dir); err != nil {
		return nil, err
	}
	d := &disk{st: st, dir: dir}
	f, err := st.Open(d.name("log"))
	if errors.Is(err, store.ErrNotExist) {
		f, err = st.Create(d.name("log"))
	}
	if err != nil {
		return nil, err
	}
	d.log = f
	return d, nil
}

func (d *disk) name(f string) string { return path.Join(d.dir, f) }

// load fills ms from the files. fresh is true when nothing was stored.
func (d *disk) load(ms *raft.MemoryStorage) (fresh bool, err error) {
	snapData, err := d.st.ReadFile(d.name("snapshot"))
	if errors.Is(err, store.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	snap := &pb.Snapshot{}
	if err := proto.Unmarshal(snapData, snap); err != nil {
		return false, fmt.Errorf("%w: snapshot: %v", cluster.ErrCorrupt, err)
	}
	if err := ms.ApplySnapshot(snap); err != nil {
		return false, err
	}
	if hs, err := d.st.ReadFile(d.name("hardstate")); err == nil {
		h := &pb.HardState{}
		if err := proto.Unmarshal(hs, h); err != nil {
			return false, fmt.Errorf("%w: hardstate: %v", cluster.ErrCorrupt, err)
		}
		if err := ms.SetHardState(h); err != nil {
			return false, err
		}
	} else if !errors.Is(err, store.ErrNotExist) {
		return false, err
	}
	size := d.log.Size()
	buf := make([]byte, size)
	if _, err := d.log.ReadAt(buf, 0); err != nil && size > 0 {
		return false, err
	}
	good := int64(0)
	for off := int64(0); off+4 <= size; {
		n := int64(binary.BigEndian.Uint32(buf[off:]))
		if off+4+n > size {
			break // torn write at the tail
		}
		e := &pb.Entry{}
		if err := proto.Unmarshal(buf[off+4:off+4+n], e); err != nil {
			break
		}
		off += 4 + n
		good = off
		last, _ := ms.LastIndex()
		first, _ := ms.FirstIndex()
		if e.GetIndex() < first || e.GetIndex() > last+1 {
			continue // before the snapshot, or not contiguous: skip
		}
		if err := ms.Append([]*pb.Entry{e}); err != nil {
			return false, err
		}
	}
	if good < size {
		if err := d.log.Truncate(good); err != nil {
			return false, err
		}
	}
	return false, nil
}

func (d *disk) saveSnapshot(snap *pb.Snapshot, ms *raft.MemoryStorage) error {
	data, err := proto.Marshal(snap)
	if err != nil {
		return err
	}
	if err := d.st.WriteFile(d.name("snapshot"), data); err != nil {
		return err
	}
	return d.rewriteLog(ms)
}

// rewriteLog replaces the log with the entries ms holds after its snapshot.
func (d *disk) rewriteLog(ms *raft.MemoryStorage) error {
	first, _ := ms.FirstIndex()
	last, _ := ms.LastIndex()
	var buf []byte
	if last >= first {
		ents, err := ms.Entries(first, last+1, 1<<62)
		if err != nil {
			return err
		}
		buf = appendFrames(buf, ents)
	}
	if err := d.log.Close(); err != nil {
		return err
	}
	if err := d.st.WriteFile(d.name("log"), buf); err != nil {
		return err
	}
	f, err := d.st.Open(d.name("log"))
	if err != nil {
		return err
	}
	d.log = f
	return nil
}

func appendFrames(buf []byte, ents []*pb.Entry) []byte {
	for _, e := range ents {
		data, err := proto.Marshal(e)
		if err != nil {
			panic(fmt.Sprintf("cluster: marshal entry %d: %v", e.GetIndex(), err))
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(data)))
		buf = append(buf, data...)
	}
	return buf
}

func (d *disk) appendEntries(ents []*pb.Entry) error {
	if len(ents) == 0 {
		return nil
	}
	return d.log.Append(appendFrames(nil, ents))
}

func (d *disk) sync() error { return d.log.Sync() }

func (d *disk) saveHardState(hs *pb.HardState) error {
	data, err := proto.Marshal(hs)
	if err != nil {
		return err
	}
	return d.st.WriteFile(d.name("hardstate"), data)
}

func (d *disk) close() error { return d.log.Close() }
