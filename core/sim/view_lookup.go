package sim

import (
	"fmt"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/log"
	"github.com/gregor-kafka/gregor/core/view"
)

// lookupRecord is what the last lookup command did (views.go), kept so
// that the snapshot of its step marks the index entries it probed and the
// batch headers it scanned. Snapshots of later steps ignore it.
type lookupRecord struct {
	step          int
	view          view.Lookup
	index, time   map[string]bool // keys of the probed .index and .timeindex entries
	chosen, timed string          // the keys it started from
	scanned       map[int64]bool  // base offsets of the batch headers read
	found         int64           // base offset of the batch holding the target, -1 if none
}

// startLookup records a lookup of target in segment s of p on n.
func (w *World) startLookup(n *Node, p *broker.Partition, s log.SegmentInfo, target string) *lookupRecord {
	w.lookup = &lookupRecord{
		step: w.step, view: view.Lookup{Broker: n.Name, Partition: p.String(), Segment: s.Name, Target: target},
		index: map[string]bool{}, time: map[string]bool{}, scanned: map[int64]bool{}, found: -1,
	}
	return w.lookup
}

func (r *lookupRecord) probedIndex(es []log.IndexEntry, chosen log.IndexEntry) {
	for _, e := range es {
		r.index[fmt.Sprint(e.Offset)] = true
	}
	r.chosen = fmt.Sprint(chosen.Offset)
}

func (r *lookupRecord) probedTimeIndex(es []log.TimeIndexEntry, chosen log.TimeIndexEntry) {
	for _, e := range es {
		r.time[fmt.Sprint(e.Timestamp)] = true
	}
	r.timed = fmt.Sprint(chosen.Timestamp)
}

// markLookup marks, in the snapshot of the lookup's own step, the entries
// and batches the lookup read.
func (w *World) markLookup(st *view.World) {
	r := w.lookup
	if r == nil || r.step != w.step-1 {
		return
	}
	lv := r.view
	lv.Found = r.found >= 0
	st.Lookup = &lv
	for i := range st.Brokers {
		if st.Brokers[i].Name != lv.Broker {
			continue
		}
		for j := range st.Brokers[i].Partitions {
			p := &st.Brokers[i].Partitions[j]
			if p.Name != lv.Partition {
				continue
			}
			for k := range p.Segments {
				s := &p.Segments[k]
				if s.Name != lv.Segment {
					continue
				}
				markEntries(s.Index, r.index, r.chosen)
				markEntries(s.TimeIndex, r.time, r.timed)
				for b := range s.Batches {
					s.Batches[b].Scanned = r.scanned[s.Batches[b].Base]
					s.Batches[b].Found = s.Batches[b].Base == r.found
				}
			}
		}
	}
}

func markEntries(es []view.Entry, probed map[string]bool, chosen string) {
	for i := range es {
		es[i].Probed, es[i].Chosen = probed[es[i].Key], es[i].Key == chosen
	}
}
