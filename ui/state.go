package ui

import (
	"fmt"
	"strings"

	"github.com/gregor-kafka/gregor/core/sim"
)

// State is what the world looks like after a step.
type State struct {
	Clock   int64 // virtual ms since the world began
	Brokers []BrokerView
	// Cut lists the brokers a network partition cuts off from the
	// others; empty while the network is whole.
	Cut []string
}

// BrokerView is one broker: its partitions while it runs, and its files
// always (a crashed broker's storage keeps what was synced).
type BrokerView struct {
	Name       string
	Up         bool
	Changed    bool // came up or went down in this step
	Partitions []PartitionView
	Files      []FileView
}

// PartitionView is one partition's log as the broker sees it.
type PartitionView struct {
	Name                 string
	Start, LEO, HW, LSO  int64
	Changed              map[string]bool // "start", "leo", "hw", "lso" moved in this step
	New                  bool
	Segments             []SegmentView
	Producers            []ProducerView
	Leader, LeaderEpoch  int32
	Replicas, InSyncReps string
}

// SegmentView is one segment: its .log and its two sparse indexes.
type SegmentView struct {
	Name             string // the .log file name
	Base, Next       int64
	Size             int64
	Active           bool
	Index            []Field // offset -> position
	TimeIndex        []Field // timestamp -> offset
	New, Changed     bool
	LargestTimestamp int64
}

// Span is the segment's offsets, "empty" when it has none.
func (s SegmentView) Span() string {
	if s.Next <= s.Base {
		return "empty"
	}
	if s.Next-1 == s.Base {
		return fmt.Sprintf("offset %d", s.Base)
	}
	return fmt.Sprintf("offsets %d..%d", s.Base, s.Next-1)
}

// ProducerView is what a partition remembers of one producer id.
type ProducerView struct {
	ID      int64
	Epoch   int16
	LastSeq int32
	Batches int
}

// FileView is one file in a broker's storage.
type FileView struct {
	Name    string
	Size    int64
	Changed bool // new, or a different size than before the step
}

// Snapshot reads the world's state.
func Snapshot(w *sim.World) State {
	st := State{Clock: w.Now() - sim.StartTime, Cut: w.Cut()}
	for _, n := range w.Nodes() {
		b := BrokerView{Name: n.Name, Up: n.Up}
		if n.Up && n.Broker != nil {
			for _, t := range n.Broker.Topics() {
				for _, p := range t.Partitions {
					l := p.Log()
					pv := PartitionView{
						Name: p.String(), Start: l.StartOffset(), LEO: l.EndOffset(), HW: p.HighWatermark, LSO: p.LastStableOffset(),
						Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, Replicas: ids(p.Replicas), InSyncReps: ids(p.ISR),
					}
					segs := l.Segments()
					for i, s := range segs {
						sv := SegmentView{Name: s.Name, Base: s.BaseOffset, Next: s.NextOffset, Size: s.Size, Active: i == len(segs)-1, LargestTimestamp: s.LargestTimestamp}
						for _, e := range s.IndexEntries {
							sv.Index = append(sv.Index, Field{fmt.Sprint(e.Offset), fmt.Sprint(e.Position)})
						}
						for _, e := range s.TimeIndexEntries {
							sv.TimeIndex = append(sv.TimeIndex, Field{fmt.Sprint(e.Timestamp), fmt.Sprint(e.Offset)})
						}
						pv.Segments = append(pv.Segments, sv)
					}
					if ps := p.Producers(); ps != nil {
						for _, e := range ps.Entries() {
							pv.Producers = append(pv.Producers, ProducerView{ID: e.ProducerID, Epoch: e.Epoch, LastSeq: e.LastSeq(), Batches: len(e.Batches)})
						}
					}
					b.Partitions = append(b.Partitions, pv)
				}
			}
		}
		for _, name := range n.Store.Names() {
			b.Files = append(b.Files, FileView{Name: name, Size: int64(n.Store.Size(name))})
		}
		st.Brokers = append(st.Brokers, b)
	}
	return st
}

func ids(xs []int32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ",")
}

// MarkChanges flags what differs in cur from prev, the state before the
// step, so the view can highlight what the step did.
func MarkChanges(prev, cur *State) {
	brokers := map[string]*BrokerView{}
	for i := range prev.Brokers {
		brokers[prev.Brokers[i].Name] = &prev.Brokers[i]
	}
	for i := range cur.Brokers {
		b := &cur.Brokers[i]
		was := brokers[b.Name]
		if was == nil {
			b.Changed = true
			was = &BrokerView{}
		} else if was.Up != b.Up {
			b.Changed = true
		}
		parts := map[string]*PartitionView{}
		for j := range was.Partitions {
			parts[was.Partitions[j].Name] = &was.Partitions[j]
		}
		for j := range b.Partitions {
			p := &b.Partitions[j]
			wp := parts[p.Name]
			if wp == nil {
				p.New = true
				continue
			}
			p.Changed = map[string]bool{"start": p.Start != wp.Start, "leo": p.LEO != wp.LEO, "hw": p.HW != wp.HW, "lso": p.LSO != wp.LSO}
			segs := map[string]SegmentView{}
			for _, s := range wp.Segments {
				segs[s.Name] = s
			}
			for k := range p.Segments {
				s := &p.Segments[k]
				ws, ok := segs[s.Name]
				s.New = !ok
				s.Changed = ok && (ws.Size != s.Size || len(ws.Index) != len(s.Index) || len(ws.TimeIndex) != len(s.TimeIndex))
			}
		}
		files := map[string]int64{}
		for _, f := range was.Files {
			files[f.Name] = f.Size
		}
		for j := range b.Files {
			size, ok := files[b.Files[j].Name]
			b.Files[j].Changed = !ok || size != b.Files[j].Size
		}
	}
}
