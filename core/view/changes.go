package view

import "fmt"

// MarkChanges flags what differs in cur from prev, the state before the
// step, so the view can highlight what the step did.
func MarkChanges(prev, cur *World) {
	brokers := map[string]*Broker{}
	for i := range prev.Brokers {
		brokers[prev.Brokers[i].Name] = &prev.Brokers[i]
	}
	for i := range cur.Brokers {
		b := &cur.Brokers[i]
		was := brokers[b.Name]
		if was == nil {
			b.Changed = true
			was = &Broker{}
		} else if was.Up != b.Up {
			b.Changed = true
		}
		parts := map[string]*Partition{}
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
			markNewBatches(p, wp.LEO) // log.go
			segs := map[string]Segment{}
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
	markChanged(prev.Groups, cur.Groups, func(g *Group) (string, *bool) {
		return fmt.Sprint(g.ID, "|", g.State, "|", g.Generation), &g.Changed
	})
	markChanged(prev.Txns, cur.Txns, func(t *Txn) (string, *bool) {
		return fmt.Sprint(t.ID, "|", t.State, "|", t.Epoch), &t.Changed
	})
}

// markChanged flags each of cur whose signature (its id and what counts
// as a change) none of prev has: it is new, or it moved in the step.
func markChanged[T any](prev, cur []T, sig func(*T) (string, *bool)) {
	was := map[string]bool{}
	for i := range prev {
		s, _ := sig(&prev[i])
		was[s] = true
	}
	for i := range cur {
		s, changed := sig(&cur[i])
		*changed = !was[s]
	}
}
