package console

import (
	"net/http"
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// group is GET /console/groups/{group}: the group as its coordinator
// holds it (members, assignment) and its lag per partition, when this
// broker coordinates it; the lag only of the topics the console's
// principal may describe, as OffsetFetch answers. A group the principal
// may not describe is refused whether or not it exists, as
// DescribeGroups refuses it.
func (c *Console) group(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("group")
	p := ui.ConsoleGroup{ConsoleFrame: c.frame(r, ui.Trf(lang(r), "Group %s", id))}
	refused := false
	c.Engine.Snapshot(func(b *broker.Broker) {
		if keep := c.describable(b, kmsg.ACLResourceTypeGroup); keep != nil && !keep(id) {
			refused = true
			return
		}
		co := b.Groups()
		if g := co.Group(id); g != nil {
			p.Group = view.GroupOf(nodeName(b.NodeID()), co, g, view.GroupMemory{Leader: g.Leader()})
			p.Lags = slices.DeleteFunc(view.LagOf(b, g, p.Group), func(l view.Lag) bool { return !c.may(b, kmsg.ACLResourceTypeTopic, l.Topic) })
		}
	})
	switch {
	case refused:
		p.Problem = ui.Trf(p.Lang, "Refused: %s may not describe group %q (%v).", c.principal(), id, kerr.GroupAuthorizationFailed)
		render(w, r, http.StatusForbidden, p.ConsoleFrame, ui.ConsoleGroupPage(p))
	case p.Group.ID == "":
		p.Problem = ui.Trf(p.Lang, "This broker coordinates no group %q (in a cluster, its coordinator may be another broker).", id)
		render(w, r, http.StatusNotFound, p.ConsoleFrame, ui.ConsoleGroupPage(p))
	default:
		render(w, r, http.StatusOK, p.ConsoleFrame, ui.ConsoleGroupPage(p))
	}
}
