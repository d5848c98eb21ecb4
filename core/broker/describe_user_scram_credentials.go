package broker

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// DescribeUserScramCredentials v0 (KIP-554; scram.go).
func init() {
	register(50, api{
		min: 0, max: 0, serve: handleDescribeUserScram,
		acl: onCluster{kmsg.ACLOperationDescribe},
	})
}

func handleDescribeUserScram(b *Broker, r *Request) kmsg.Response {
	return cluster.DescribeScram(r.Msg.(*kmsg.DescribeUserSCRAMCredentialsRequest), b.image.scram())
}
