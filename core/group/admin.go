package group

import (
	"cmp"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DescribeGroups v0-5. Member metadata and assignments are shown only in
// a stable group, as Kafka shows them; an unknown group is reported Dead
// without an error, and so is a KIP-848 group (ConsumerGroupDescribe
// describes those).
func (c *Coordinator) describeGroups(req *kmsg.DescribeGroupsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
	for _, id := range req.Groups {
		dg := kmsg.NewDescribeGroupsResponseGroup()
		dg.Group = id
		g := c.groups[id]
		switch {
		case id == "":
			dg.ErrorCode = kerr.InvalidGroupID.Code
		case g == nil || g.typ != Classic:
			dg.State = string(Dead)
		default:
			dg.State, dg.ProtocolType = string(g.state), g.protocolType
			if g.state == Stable {
				dg.Protocol = g.protocol
			}
			for _, m := range g.sorted() {
				dm := kmsg.NewDescribeGroupsResponseGroupMember()
				dm.MemberID, dm.ClientID, dm.ClientHost = m.id, m.clientID, m.clientHost
				if m.instanceID != "" {
					inst := m.instanceID
					dm.InstanceID = &inst
				}
				if g.state == Stable {
					dm.ProtocolMetadata, dm.MemberAssignment = m.metadataFor(g.protocol), m.assignment
				}
				dg.Members = append(dg.Members, dm)
			}
		}
		resp.Groups = append(resp.Groups, dg)
	}
	return resp
}

// ListGroups v0-5, filtered by state (v4, KIP-518) and type (v5, KIP-848).
func (c *Coordinator) listGroups(req *kmsg.ListGroupsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.ListGroupsResponse)
	matches := func(filter []string, v string) bool {
		if len(filter) == 0 {
			return true
		}
		for _, f := range filter {
			if strings.EqualFold(f, v) {
				return true
			}
		}
		return false
	}
	for _, id := range c.groupIDs() {
		g := c.groups[id]
		if !matches(req.StatesFilter, string(g.state)) || !matches(req.TypesFilter, string(g.typ)) {
			continue
		}
		lg := kmsg.NewListGroupsResponseGroup()
		lg.Group, lg.ProtocolType, lg.GroupState, lg.GroupType = id, g.protocolType, string(g.state), string(g.typ)
		if g.typ == Consumer {
			lg.ProtocolType = "consumer"
		}
		resp.Groups = append(resp.Groups, lg)
	}
	return resp
}

// DeleteGroups v0-2: only an empty group may be deleted; its offsets and
// metadata get tombstones.
func (c *Coordinator) deleteGroups(req *kmsg.DeleteGroupsRequest) kmsg.Response {
	resp := req.ResponseKind().(*kmsg.DeleteGroupsResponse)
	for _, id := range req.Groups {
		rg := kmsg.NewDeleteGroupsResponseGroup()
		rg.Group = id
		g := c.groups[id]
		switch {
		case id == "":
			rg.ErrorCode = kerr.InvalidGroupID.Code
		case g == nil:
			rg.ErrorCode = kerr.GroupIDNotFound.Code
		case g.state != Empty || len(g.pending) > 0:
			rg.ErrorCode = kerr.NonEmptyGroup.Code
		default:
			var recs []kv
			for _, tp := range g.sortedOffsets() {
				recs = append(recs, kv{EncodeOffsetKey(id, tp.topic, tp.partition), nil})
			}
			recs = append(append(recs, kv{EncodeGroupKey(id), nil}), consumerTombstones(g)...)
			if err := c.write(g, recs); err != nil {
				rg.ErrorCode = writeFailed()
				break
			}
			delete(c.groups, id)
			c.cfg.Logf("group %s: deleted", id)
		}
		resp.Groups = append(resp.Groups, rg)
	}
	return resp
}

func (g *Group) sortedOffsets() []topicPartition {
	tps := make([]topicPartition, 0, len(g.offsets))
	for tp := range g.offsets {
		tps = append(tps, tp)
	}
	sortTPs(tps)
	return tps
}

func sortTPs(tps []topicPartition) {
	slices.SortFunc(tps, func(a, b topicPartition) int {
		if c := strings.Compare(a.topic, b.topic); c != 0 {
			return c
		}
		return cmp.Compare(a.partition, b.partition)
	})
}
