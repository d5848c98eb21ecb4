package quorum

import (
	"errors"
	"fmt"
	"github.com/gregor-kafka/gregor/core/cluster"

	"go.etcd.io/raft/v3"
	pb "go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// ErrHalted is what Process returns once it failed: a Ready that could not
// be persisted or applied was accepted by raft and never advanced, so the
// node cannot go on (raft would panic at the next Ready). Like Kafka,
// which halts a KRaft node whose metadata log cannot be written, the
// caller stops the node; a restart recovers it from its disk.
var ErrHalted = errors.New("quorum: node halted after a failure")

// Process handles everything raft has ready: it persists new entries, the
// hard state and any snapshot (durably, before anything is sent), applies
// committed entries to the image, and returns the messages to send, the
// controller responses and what was applied. Call it after every Tick,
// Step or Submit. After an error (a full or failing disk under the
// metadata log) it returns ErrHalted for good.
func (n *Node) Process() (Output, error) {
	var out Output
	if n.halted != nil {
		return out, n.halted
	}
	for n.rn.HasReady() {
		rd := n.rn.Ready()
		if err := n.persist(&rd); err != nil {
			n.halted = fmt.Errorf("%w: %w", ErrHalted, err)
			return out, n.halted
		}
		out.Messages = append(out.Messages, rd.Messages...)
		n.syncLeadership()
		for _, e := range rd.CommittedEntries {
			if err := n.apply(e); err != nil {
				n.halted = fmt.Errorf("%w: %w", ErrHalted, err)
				return out, n.halted
			}
		}
		n.rn.Advance(rd)
		n.syncLeadership()
		// A snapshot is reported sent as soon as it is handed over: the
		// transport may lose it, and the leader then finds out by probing
		// and sends another, instead of waiting for a report forever.
		for _, m := range rd.Messages {
			if m.GetType() == pb.MsgSnap {
				n.rn.ReportSnapshot(m.GetTo(), raft.SnapshotFinish)
			}
		}
	}
	if err := n.maybeSnapshot(); err != nil {
		return out, err
	}
	out.Responses, n.responses = n.responses, nil
	out.Applied, n.applied = n.applied, nil
	return out, nil
}

func (n *Node) persist(rd *raft.Ready) error {
	if !raft.IsEmptySnap(rd.Snapshot) {
		if err := n.ms.ApplySnapshot(rd.Snapshot); err != nil {
			return err
		}
		if n.disk != nil {
			if err := n.disk.saveSnapshot(rd.Snapshot, n.ms); err != nil {
				return err
			}
		}
		im, err := cluster.DecodeImage(rd.Snapshot.GetData())
		if err != nil {
			return err
		}
		meta := rd.Snapshot.GetMetadata()
		im.Index = meta.GetIndex()
		n.image, n.snapIndex = im, im.Index
		n.confState = proto.Clone(meta.GetConfState()).(*pb.ConfState)
		n.applied = append(n.applied, Applied{Index: im.Index, Term: meta.GetTerm(), Snapshot: true})
		if n.ctl != nil {
			n.ctl.imageReplaced()
		}
	}
	if err := n.ms.Append(rd.Entries); err != nil {
		return err
	}
	if n.disk != nil {
		if err := n.disk.appendEntries(rd.Entries); err != nil {
			return err
		}
		if rd.MustSync || len(rd.Entries) > 0 {
			if err := n.disk.sync(); err != nil {
				return err
			}
		}
	}
	if !raft.IsEmptyHardState(rd.HardState) {
		if err := n.ms.SetHardState(rd.HardState); err != nil {
			return err
		}
		if n.disk != nil {
			if err := n.disk.saveHardState(rd.HardState); err != nil {
				return err
			}
		}
	}
	return nil
}

func (n *Node) apply(e *pb.Entry) error {
	if e.GetIndex() <= n.image.Index {
		return nil // already in the image (from a snapshot)
	}
	a := Applied{Index: e.GetIndex(), Term: e.GetTerm()}
	switch e.GetType() {
	case pb.EntryNormal:
		if len(e.GetData()) == 0 {
			// A new leader's empty entry: once it is applied the image
			// holds everything committed before this term.
			n.image.Index = e.GetIndex()
			if n.ctl != nil && e.GetTerm() == n.ctl.term {
				n.ctl.activate()
			}
			break
		}
		b, err := cluster.DecodeBatch(e.GetData())
		if err != nil {
			// Every member skips it alike; nothing to apply.
			n.image.Index = e.GetIndex()
			a.Errs = []error{err}
			break
		}
		a.Batch = b
		a.Errs, a.Deltas = n.image.Apply(e.GetIndex(), b)
		if n.ctl != nil {
			n.ctl.committed(e.GetTerm(), b, a.Errs)
		}
	case pb.EntryConfChange, pb.EntryConfChangeV2:
		var cc pb.ConfChangeI
		if e.GetType() == pb.EntryConfChange {
			c := &pb.ConfChange{}
			if err := proto.Unmarshal(e.GetData(), c); err != nil {
				return fmt.Errorf("%w: conf change %d: %v", cluster.ErrCorrupt, e.GetIndex(), err)
			}
			cc = c
		} else {
			c := &pb.ConfChangeV2{}
			if err := proto.Unmarshal(e.GetData(), c); err != nil {
				return fmt.Errorf("%w: conf change %d: %v", cluster.ErrCorrupt, e.GetIndex(), err)
			}
			cc = c
		}
		n.confState = n.rn.ApplyConfChange(cc)
		n.image.Index = e.GetIndex()
	}
	n.applied = append(n.applied, a)
	return nil
}

// syncLeadership keeps a controller exactly while the node leads, one per
// term: a new term means a new controller with nothing pending.
func (n *Node) syncLeadership() {
	st := n.rn.BasicStatus()
	n.state, n.lead = st.RaftState, st.Lead
	if n.ctl != nil && (st.RaftState != raft.StateLeader || n.ctl.term != st.GetTerm()) {
		n.ctl.resign()
		n.ctl = nil
	}
	if st.RaftState == raft.StateLeader && n.ctl == nil {
		n.ctl = newController(n, st.GetTerm())
	}
}

// maybeSnapshot snapshots the image and compacts the log every
// SnapshotEvery entries, keeping a quarter of that behind the snapshot so
// a follower a little behind still catches up from the log.
func (n *Node) maybeSnapshot() error {
	idx := n.image.Index
	if idx < n.snapIndex+n.cfg.SnapshotEvery {
		return nil
	}
	snap, err := n.ms.CreateSnapshot(idx, n.confState, n.image.Encode())
	if err != nil {
		return err
	}
	n.snapIndex = idx
	if keep := n.cfg.SnapshotEvery / 4; idx > keep {
		if first, _ := n.ms.FirstIndex(); idx-keep > first {
			if err := n.ms.Compact(idx - keep); err != nil {
				return err
			}
		}
	}
	if n.disk != nil {
		return n.disk.saveSnapshot(snap, n.ms)
	}
	return nil
}

// discardLogger drops raft's log lines but keeps its panics.
type discardLogger struct{}

func (discardLogger) Debug(...any)            {}
func (discardLogger) Debugf(string, ...any)   {}
func (discardLogger) Error(...any)            {}
func (discardLogger) Errorf(string, ...any)   {}
func (discardLogger) Info(...any)             {}
func (discardLogger) Infof(string, ...any)    {}
func (discardLogger) Warning(...any)          {}
func (discardLogger) Warningf(string, ...any) {}
func (discardLogger) Fatal(v ...any)          { panic(fmt.Sprint(v...)) }
func (discardLogger) Fatalf(f string, v ...any) {
	panic(fmt.Sprintf(f, v...))
}
func (discardLogger) Panic(v ...any)            { panic(fmt.Sprint(v...)) }
func (discardLogger) Panicf(f string, v ...any) { panic(fmt.Sprintf(f, v...)) }
