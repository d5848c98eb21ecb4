package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ShareGroupDescribe v1 (KIP-932; share_groups.go).
func init() {
	register(77, api{
		min: 1, max: 1, serve: handleShareDescribe,
		acl: onGroups{op: kmsg.ACLOperationDescribe, list: "GroupIDs", key: "GroupID", hide: true},
		ops: describedGroupsOps,
	})
}

func handleShareDescribe(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ShareGroupDescribeRequest)
	resp := req.ResponseKind().(*kmsg.ShareGroupDescribeResponse)
	for _, id := range req.GroupIDs {
		d := kmsg.NewShareGroupDescribeResponseGroup()
		d.GroupID = id
		g := b.share.Group(id)
		switch {
		case !b.coordinatesGroup(id):
			d.ErrorCode = kerr.NotCoordinator.Code
		case g == nil && slices.Contains(b.shareGroups(), id):
			d.GroupState, d.Assignor = "Empty", "simple"
		case g == nil:
			d.ErrorCode = kerr.GroupIDNotFound.Code
			d.ErrorMessage = kmsg.StringPtr("Group " + id + " not found.")
			if b.shareGroupConflict(id) {
				d.ErrorMessage = kmsg.StringPtr("Group " + id + " is not a share group.")
			}
		default:
			d.GroupState, d.GroupEpoch, d.AssignmentEpoch, d.Assignor = g.State(), g.Epoch, g.Epoch, "simple"
			for _, m := range g.Members() {
				dm := kmsg.NewShareGroupDescribeResponseGroupMember()
				dm.MemberID, dm.MemberEpoch, dm.ClientID, dm.ClientHost = m.ID, m.Epoch, m.ClientID, m.ClientHost
				if m.Rack != "" {
					dm.RackID = kmsg.StringPtr(m.Rack)
				}
				dm.SubscribedTopicNames = m.Topics
				for _, t := range m.Topics {
					if ps := m.Assigned[t]; len(ps) > 0 {
						id, _, _ := coordinatorHost{b}.Topic(t)
						dm.Assignment.TopicPartitions = append(dm.Assignment.TopicPartitions,
							kmsg.ShareGroupDescribeResponseGroupMemberAssignmentTopicPartition{TopicID: id, Topic: t, Partitions: ps})
					}
				}
				d.Members = append(d.Members, dm)
			}
		}
		resp.Groups = append(resp.Groups, d)
	}
	return resp
}
