package console

import (
	"context"
	"errors"
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
// broker coordinates it, else a link to the broker that does
// (FindCoordinator). The lag is only that of the topics the console's
// principal may describe, as OffsetFetch answers; a group it may not
// describe is refused whether or not it exists, as DescribeGroups
// refuses it.
func (c *Console) group(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("group")
	p := ui.ConsoleGroup{ConsoleFrame: c.frame(r, ui.Trf(lang(r), "Group %s", id)), ID: id, Coordinator: -1}
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
		p.Problem = ui.Trf(p.Lang, "This broker coordinates no group %q.", id)
		code := http.StatusNotFound
		if node, err := c.coordinator(r.Context(), id); err == nil && node != p.Node {
			p.Coordinator = node
			p.Problem = ui.Trf(p.Lang, "Broker %d coordinates group %q: see it there.", node, id)
			code = http.StatusMisdirectedRequest
		}
		render(w, r, code, p.ConsoleFrame, ui.ConsoleGroupPage(p))
	default:
		render(w, r, http.StatusOK, p.ConsoleFrame, ui.ConsoleGroupPage(p))
	}
}

// coordinator is the node that coordinates group, as FindCoordinator
// answers.
func (c *Console) coordinator(ctx context.Context, group string) (int32, error) {
	req := kmsg.NewPtrFindCoordinatorRequest()
	req.CoordinatorType, req.CoordinatorKeys = 0, []string{group}
	resp, err := ask[*kmsg.FindCoordinatorResponse](ctx, c, req)
	if err != nil {
		return -1, err
	}
	for _, co := range resp.Coordinators {
		return co.NodeID, kafkaError(co.ErrorCode, co.ErrorMessage)
	}
	return -1, errors.New("FindCoordinator answered no coordinator")
}
