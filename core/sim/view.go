package sim

import (
	"github.com/gregor-kafka/gregor/core/view"
)

// View is a snapshot of what a learner can see of the world now.
func (w *World) View() view.World {
	st := view.World{Clock: w.now - view.StartTime, Cut: w.Cut()}
	for _, n := range w.nodes {
		b := view.Broker{ID: n.ID, Name: n.Name, Up: n.Up, Stopped: !n.Up && n.stopped}
		if n.Up && n.Broker != nil {
			b.Partitions = view.Partitions(n.Broker)
			st.Shares = append(st.Shares, view.Shares(n.Name, n.Broker, w.now)...)
		}
		for _, name := range n.Store.Names() {
			b.Files = append(b.Files, view.File{Name: name, Size: int64(n.Store.Size(name))})
		}
		st.Brokers = append(st.Brokers, b)
	}
	st.Groups = w.groupViews()       // view_groups.go
	st.Txns = w.txnViews()           // view_txns.go
	st.Producers = w.producerViews() // view_txns.go
	w.markLookup(&st)                // view_lookup.go
	st.Actors = w.actors()           // view_actors.go
	return st
}
