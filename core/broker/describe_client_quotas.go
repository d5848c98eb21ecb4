package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/quota"
)

// DescribeClientQuotas v0-1 (KIP-546; client_quotas.go).
func init() {
	register(48, api{
		min: 0, max: 1, serve: handleDescribeClientQuotas,
		acl: onCluster{kmsg.ACLOperationDescribeConfigs},
	})
}

func handleDescribeClientQuotas(b *Broker, r *Request) kmsg.Response {
	return quota.Describe(b.image.quotas(), r.Msg.(*kmsg.DescribeClientQuotasRequest))
}
