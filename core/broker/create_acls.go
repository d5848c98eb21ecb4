package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// CreateAcls v0-3 (KIP-11): forwarded to the controller in a cluster
// (KIP-590; acls.go).
func init() {
	register(30, api{
		min: 0, max: 3, serve: byController(applyCreateAcls),
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

// applyCreateAcls is how a single broker, its own controller, serves it.
func applyCreateAcls(b *Broker, r *Request) kmsg.Response {
	resp, recs := cluster.CreateACLs(r.Msg.(*kmsg.CreateACLsRequest), b.meta.ACLs)
	if b.applyACLs(recs) {
		for i := range resp.Results {
			if resp.Results[i].ErrorCode == 0 {
				resp.Results[i].ErrorCode = kerr.KafkaStorageError.Code
			}
		}
	}
	return resp
}
