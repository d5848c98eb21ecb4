package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// DeleteAcls v0-3 (KIP-11): forwarded to the controller in a cluster
// (KIP-590; acls.go).
func init() {
	register(31, api{
		min: 0, max: 3, serve: byController(applyDeleteAcls),
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

// applyDeleteAcls is how a single broker, its own controller, serves it.
func applyDeleteAcls(b *Broker, r *Request) kmsg.Response {
	resp, recs := cluster.DeleteACLs(r.Msg.(*kmsg.DeleteACLsRequest), b.meta.ACLs)
	if b.applyACLs(recs) {
		for i := range resp.Results {
			resp.Results[i].ErrorCode = kerr.KafkaStorageError.Code
		}
	}
	return resp
}
