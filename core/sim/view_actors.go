package sim

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/txn"
	"github.com/gregor-kafka/gregor/core/view"
)

// actors lists everyone a diagram draws: the clients in creation order,
// the brokers by id with the coordinators they host, then, in a cluster,
// the controller quorum's voters (actors_quorum.go).
func (w *World) actors() []view.Actor {
	var out []view.Actor
	groups, txnIDs := map[string]bool{}, map[string]bool{}
	for _, name := range w.order {
		a := view.Actor{Name: name, Up: true}
		switch c := w.clients[name].(type) {
		case *producer:
			a.Kind, a.Detail = view.KindProducer, producerDetail(c)
			if c.txn != nil {
				txnIDs[c.txn.id] = true
				//purity:unordered fills a set
				for g := range c.txn.groupCo {
					groups[g] = true
				}
			}
		case *consumer:
			a.Kind = view.KindConsumer
			var detail []string
			if c.readCommited {
				detail = append(detail, "read_committed")
			}
			if c.rack != "" {
				detail = append(detail, "client.rack="+c.rack)
			}
			a.Detail = strings.Join(detail, " ")
		case *member:
			a.Kind, a.Detail = view.KindMember, fmt.Sprintf("group %s: %s", c.groupID, c.state)
			groups[c.groupID] = true
		case *shareMember:
			a.Kind, a.Detail = view.KindMember, fmt.Sprintf("share group %s", c.group)
		case *admin:
			a.Kind = view.KindAdmin
		case deadClient:
			a.Kind, a.Up, a.Detail = view.KindClient, false, "process killed"
		}
		out = append(out, a)
	}
	for _, n := range w.nodes {
		a := view.Actor{Name: n.Name, Kind: view.KindBroker, Up: n.Up, Stopped: !n.Up && n.stopped, Cut: w.net.cut[n.Name]}
		if rack := n.settings["broker.rack"]; rack != "" {
			a.Roles = append(a.Roles, "rack "+rack) // KIP-36
		}
		if n.Up && n.Broker != nil {
			for _, g := range w.knownIDs(groups, n.Broker.Groups().Groups()) {
				if w.leads(n, group.Topic, n.Broker.Groups().PartitionFor(g)) {
					a.Roles = append(a.Roles, "group coordinator ("+g+")")
				}
			}
			for _, id := range w.knownIDs(txnIDs, nil) {
				if w.leads(n, txn.Topic, n.Broker.Transactions().PartitionFor(id)) {
					a.Roles = append(a.Roles, "transaction coordinator ("+id+")")
				}
			}
		}
		out = append(out, a)
	}
	return append(out, w.controllerActors()...)
}

// knownIDs is the ids the clients named plus those a coordinator holds,
// sorted.
func (w *World) knownIDs(named map[string]bool, held []string) []string {
	ids := make([]string, 0, len(named)+len(held))
	for id := range named {
		ids = append(ids, id)
	}
	for _, id := range held {
		if !named[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// leads reports whether node n leads its replica of topic-part: the
// coordinator of a group or a transactional id is the leader of its
// partition of the internal topic (KIP-98, the group protocol).
func (w *World) leads(n *Node, topic string, part int32) bool {
	t := n.Broker.Topic(topic)
	if t == nil || part < 0 || int(part) >= len(t.Partitions) {
		return false
	}
	return t.Partitions[part].Leader == n.ID
}

func producerDetail(p *producer) string {
	var parts []string
	switch {
	case p.txn != nil:
		parts = append(parts, "transactional.id "+p.txn.id)
		if p.txn.tv2 {
			parts = append(parts, "tv=2") // KIP-890 part 2: an epoch per transaction
		}
	case p.idempotent:
		parts = append(parts, "idempotent")
	}
	switch p.acks {
	case -1:
		if p.txn == nil {
			parts = append(parts, "acks=all")
		}
	default:
		parts = append(parts, fmt.Sprintf("acks=%d", p.acks))
	}
	if p.pid >= 0 {
		parts = append(parts, fmt.Sprintf("pid=%d epoch=%d", p.pid, p.epoch))
	}
	return strings.Join(parts, " ")
}
