package broker

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// ListGroups v0-5: the groups this broker coordinates, with their
// states (KIP-518).
func init() {
	register(16, api{min: 0, max: 5, serve: handleGroupRead, acl: listGroupsACL{}})
}

// listGroupsACL: DESCRIBE on the cluster lists every group; without it
// the answer lists only the groups the principal may describe.
type listGroupsACL struct{}

func (listGroupsACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	if b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationDescribe}) {
		return nil, nil
	}
	return nil, func(resp kmsg.Response) {
		lr := resp.(*kmsg.ListGroupsResponse)
		lr.Groups = slices.DeleteFunc(lr.Groups, func(g kmsg.ListGroupsResponseGroup) bool {
			return !b.may(r, check{kmsg.ACLResourceTypeGroup, g.Group, kmsg.ACLOperationDescribe})
		})
	}
}
