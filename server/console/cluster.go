package console

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/view"
	"github.com/gregor-kafka/gregor/ui"
)

// home is GET /console: the cluster as DescribeCluster answers it, a
// page of topics (?after=NAME) and of what this broker coordinates
// (?groups=ID, ?txns=ID).
func (c *Console) home(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p := ui.ConsoleHome{ConsoleFrame: c.frame(r, ui.Tr(lang(r), "Cluster")), After: q.Get("after"), GroupsAfter: q.Get("groups"), TxnsAfter: q.Get("txns")}
	code := http.StatusOK
	cl, err := c.cluster(r.Context())
	if err != nil {
		p.Problem, code = ui.Trf(p.Lang, "The cluster could not be described: %v", err), status(err)
	}
	p.Cluster = cl
	c.coordinated(&p)
	render(w, r, code, p.ConsoleFrame, ui.ConsoleHomePage(p))
}

// coordinated fills in the home page's snapshot: a page of topics, of
// the groups and of the transactions this broker coordinates, and the
// first share groups and share partitions, each only what the console's
// principal may describe (a share partition: its group).
func (c *Console) coordinated(p *ui.ConsoleHome) {
	c.Engine.Snapshot(func(b *broker.Broker) {
		p.Topics, p.Next = view.TopicPage(b, p.After, TopicsPerPage, c.describable(b, kmsg.ACLResourceTypeTopic))
		name := nodeName(b.NodeID())
		groups := c.describable(b, kmsg.ACLResourceTypeGroup)
		p.Groups, p.GroupsNext = view.GroupsAfter(b, name, p.GroupsAfter, GroupsPerPage, groups)
		p.Txns, p.TxnsNext = view.TxnsAfter(b, name, p.TxnsAfter, GroupsPerPage, c.describable(b, kmsg.ACLResourceTypeTransactionalId))
		p.ShareGroups = view.ShareGroupsUpTo(b, GroupsPerPage, groups)
		p.Shares = view.Shares(name, b, time.Now().UnixMilli())
		if groups != nil {
			p.Shares = slices.DeleteFunc(p.Shares, func(s view.SharePartition) bool { return !groups(s.Group) })
		}
		p.Shares = p.Shares[:min(len(p.Shares), GroupsPerPage)]
	})
}

// nodeName is how the views name a broker: the one whose
// coordinator holds a group or transaction, the one holding a replica.
func nodeName(node int32) string { return fmt.Sprintf("node %d", node) }

// cluster asks DescribeCluster.
func (c *Console) cluster(ctx context.Context) (view.Cluster, error) {
	resp, err := ask[*kmsg.DescribeClusterResponse](ctx, c, kmsg.NewPtrDescribeClusterRequest())
	if err != nil {
		return view.Cluster{}, err
	}
	if err := kafkaError(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return view.Cluster{}, err
	}
	cl := view.Cluster{ID: resp.ClusterID, Controller: resp.ControllerID}
	for _, b := range resp.Brokers {
		cb := view.ClusterBroker{ID: b.NodeID, Host: b.Host, Port: b.Port}
		if b.Rack != nil {
			cb.Rack = *b.Rack
		}
		cl.Brokers = append(cl.Brokers, cb)
	}
	return cl, nil
}
