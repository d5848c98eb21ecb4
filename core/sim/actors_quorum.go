//go:build !noquorum

package sim

import (
	"fmt"

	"github.com/gregor-kafka/gregor/core/view"
)

// controllerActors lists the voters of the metadata quorum, one per node
// (KRaft's combined mode), with the active controller marked.
func (w *World) controllerActors() []view.Actor {
	if w.cl == nil {
		return nil
	}
	active := w.controllerName()
	var out []view.Actor
	for _, n := range w.nodes {
		a := view.Actor{Name: n.Name + "/controller", Kind: view.KindController, Host: n.Name, Up: n.Up, Stopped: !n.Up && n.stopped, Cut: w.net.cut[n.Name]}
		switch {
		case !n.Up:
		case n.Name == active:
			a.Roles = []string{"active controller"}
		default:
			a.Roles = []string{"voter"}
		}
		if n.Up && n.Quorum != nil {
			a.Detail = fmt.Sprintf("term %d", n.Quorum.Status().Term)
		}
		out = append(out, a)
	}
	return out
}
