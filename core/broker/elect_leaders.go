package broker

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// ElectLeaders v0-2 (KIP-183; the election type from v1, KIP-460). In a
// cluster the controller elects (KIP-590 forwarding). A single broker
// decides with the same rules (cluster.ElectLeaders) on its own
// partitions, where it is the only replica and leads them all: every
// election it is asked for is ELECTION_NOT_NEEDED, as Kafka answers for a
// preferred leader already leading, and asked for all partitions it
// answers none.
func init() {
	register(43, api{
		min: 0, max: 2, serve: byController(applyElectLeaders),
		acl: onCluster{kmsg.ACLOperationAlter},
	})
}

// applyElectLeaders is how a single broker, its own controller, serves it.
func applyElectLeaders(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ElectLeadersRequest)
	resp, elections := cluster.ElectLeaders(b.soloImage(), req)
	if len(elections) > 0 {
		panic(fmt.Sprintf("broker: a single broker elected %d leaders of partitions it leads alone: %+v", len(elections), elections[0].Change))
	}
	return resp
}
