package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/quota"
)

// AlterClientQuotas v0-1 (KIP-546): forwarded to the controller in a
// cluster (KIP-590; client_quotas.go).
func init() {
	register(49, api{
		min: 0, max: 1, serve: byController(applyAlterClientQuotas),
		acl: onCluster{kmsg.ACLOperationAlterConfigs},
	})
}

// applyAlterClientQuotas is how a single broker, its own controller, serves it.
func applyAlterClientQuotas(b *Broker, r *Request) kmsg.Response {
	changed := false
	resp := quota.Alter(r.Msg.(*kmsg.AlterClientQuotasRequest), func(key string, ops []quota.Op) {
		if b.meta.Quotas == nil {
			b.meta.Quotas = quota.Quotas{}
		}
		b.meta.Quotas.Apply(key, ops)
		changed = true
	})
	if !changed {
		return resp
	}
	if err := b.saveMetadata(); err != nil {
		msg := err.Error()
		for i := range resp.Entries {
			resp.Entries[i].ErrorCode, resp.Entries[i].ErrorMessage = kerr.KafkaStorageError.Code, &msg
		}
	}
	return resp
}
