package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// AlterUserScramCredentials v0 (KIP-554): forwarded to the controller
// in a cluster (KIP-590; scram.go).
func init() {
	register(51, api{
		min: 0, max: 0, serve: byController(applyAlterUserScram),
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

// applyAlterUserScram is how a single broker, its own controller, serves it.
func applyAlterUserScram(b *Broker, r *Request) kmsg.Response {
	if b.meta.Scram == nil {
		b.meta.Scram = map[string]*cluster.ScramCredential{}
	}
	resp, recs := cluster.AlterScram(r.Msg.(*kmsg.AlterUserSCRAMCredentialsRequest), b.meta.Scram)
	if len(recs) == 0 {
		return resp
	}
	for i := range recs {
		cluster.ApplyScram(b.meta.Scram, &recs[i])
	}
	if err := b.saveMetadata(); err != nil {
		b.cfg.Logf("saving SCRAM credentials: %v", err)
		for i := range resp.Results {
			if resp.Results[i].ErrorCode == 0 {
				resp.Results[i].ErrorCode = kerr.KafkaStorageError.Code
			}
		}
	}
	return resp
}
