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
		min: 0, max: 3, serve: handleDeleteAcls,
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

func handleDeleteAcls(b *Broker, r *Request) kmsg.Response {
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	resp, recs := cluster.DeleteACLs(r.Msg.(*kmsg.DeleteACLsRequest), b.meta.ACLs)
	if b.applyACLs(recs) {
		for i := range resp.Results {
			resp.Results[i].ErrorCode = kerr.KafkaStorageError.Code
		}
	}
	return resp
}
