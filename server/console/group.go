package console

import (
	"net/http"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// group is GET /console/groups/{group}: the group as its coordinator
// holds it (members, assignment) and its lag per partition, when this
// broker coordinates it.
func (c *Console) group(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("group")
	p := ui.ConsoleGroup{ConsoleFrame: c.frame(r, ui.Trf(lang(r), "Group %s", id))}
	c.Engine.Snapshot(func(b *broker.Broker) {
		co := b.Groups()
		if g := co.Group(id); g != nil {
			p.Group = view.GroupOf(nodeName(b.NodeID()), co, g, view.GroupMemory{Leader: g.Leader()})
			p.Lags = view.LagOf(b, g, p.Group)
		}
	})
	if p.Group.ID == "" {
		p.Problem = ui.Trf(p.Lang, "This broker coordinates no group %q (in a cluster, its coordinator may be another broker).", id)
		render(w, r, http.StatusNotFound, p.ConsoleFrame, ui.ConsoleGroupPage(p))
		return
	}
	render(w, r, http.StatusOK, p.ConsoleFrame, ui.ConsoleGroupPage(p))
}
