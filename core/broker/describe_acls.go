package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// DescribeAcls v0-3 (KIP-11; prefixed patterns from v1, KIP-290): the
// bindings that match a filter (acls.go).
func init() {
	register(29, api{
		min: 0, max: 3, serve: handleDescribeAcls,
		acl: onCluster{kmsg.ACLOperationDescribe},
	})
}

func handleDescribeAcls(b *Broker, r *Request) kmsg.Response {
	return cluster.DescribeACLs(r.Msg.(*kmsg.DescribeACLsRequest), b.image.acls())
}
