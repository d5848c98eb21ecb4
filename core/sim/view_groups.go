package sim

import (
	"github.com/gregor-kafka/gregor/core/broker"
	"github.com/gregor-kafka/gregor/core/group"
	"github.com/gregor-kafka/gregor/core/view"
)

// groupViews reads every consumer group from the coordinator in charge of
// it (view.GroupOf), with the leader and the previous generation's owners
// as the members reported them (groupHistory).
func (w *World) groupViews() []view.Group {
	var out []view.Group
	w.eachHeld(group.Topic, func(b *broker.Broker) []string { return b.Groups().Groups() },
		func(b *broker.Broker, id string) int32 { return b.Groups().PartitionFor(id) },
		func(n *Node, id string) {
			if g := n.Broker.Groups().Group(id); g != nil {
				out = append(out, view.GroupOf(n.Name, n.Broker.Groups(), g, w.groupMemory(g)))
			}
		})
	return out
}

// groupMemory is what the simulator remembers of g's current and
// previous generations.
func (w *World) groupMemory(g *group.Group) view.GroupMemory {
	var mem view.GroupMemory
	if rec := w.groupHistory[g.ID()][g.Generation()]; rec != nil {
		mem.Leader = rec.leader
	}
	if _, prev := w.earlierGeneration(g.ID(), g.Generation(), -1); prev != nil {
		mem.Earlier, mem.Owners = true, prev.owners(nil)
	}
	return mem
}
