package view

import "fmt"

// MarkChanges flags what differs in cur from prev, the state before the
// step, so the view can highlight what the step did.
func MarkChanges(prev, cur *World) {
	brokers := byName(prev.Brokers, func(b *Broker) string { return b.Name })
	for i := range cur.Brokers {
		b := &cur.Brokers[i]
		was := brokers[b.Name]
		if was == nil {
			b.Changed = true
			was = &Broker{}
		} else if was.Up != b.Up {
			b.Changed = true
		}
		parts := byName(was.Partitions, func(p *Partition) string { return p.Name })
		for j := range b.Partitions {
			p := &b.Partitions[j]
			wp := parts[p.Name]
			if wp == nil {
				p.New = true
				continue
			}
			p.Changed = map[string]bool{"start": p.Start != wp.Start, "leo": p.LEO != wp.LEO, "hw": p.HW != wp.HW, "lso": p.LSO != wp.LSO}
			markNewBatches(p, wp.LEO) // log.go
			segs := byName(wp.Segments, func(s *Segment) string { return s.Name })
			for k := range p.Segments {
				s := &p.Segments[k]
				ws, ok := segs[s.Name]
				s.New = !ok
				s.Changed = ok && (ws.Size != s.Size || len(ws.Index) != len(s.Index) || len(ws.TimeIndex) != len(s.TimeIndex))
			}
		}
		files := byName(was.Files, func(f *File) string { return f.Name })
		for j := range b.Files {
			f, ok := files[b.Files[j].Name]
			b.Files[j].Changed = !ok || f.Size != b.Files[j].Size
		}
	}
	markChanged(prev.Groups, cur.Groups, func(g *Group) (string, *bool) {
		return fmt.Sprint(g.ID, "|", g.State, "|", g.Generation), &g.Changed
	})
	markChanged(prev.Txns, cur.Txns, func(t *Txn) (string, *bool) {
		return fmt.Sprint(t.ID, "|", t.State, "|", t.Epoch), &t.Changed
	})
}

// byName indexes xs by a name, pointing into xs.
func byName[T any](xs []T, name func(*T) string) map[string]*T {
	m := make(map[string]*T, len(xs))
	for i := range xs {
		m[name(&xs[i])] = &xs[i]
	}
	return m
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
