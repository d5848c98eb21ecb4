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
func init() { register(43, 0, 2, handleElectLeaders) }

func handleElectLeaders(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.ElectLeadersRequest)
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	self := b.cfg.NodeID
	im := cluster.NewImage()
	im.Brokers[self] = &cluster.Broker{ID: self}
	for name, t := range b.topics {
		ct := &cluster.Topic{Name: name}
		for range t.Partitions {
			ct.Partitions = append(ct.Partitions, &cluster.Partition{Replicas: []int32{self}, ISR: []int32{self}, Leader: self})
		}
		im.Topics[name] = ct
	}
	resp, elections := cluster.ElectLeaders(im, req)
	if len(elections) > 0 {
		panic(fmt.Sprintf("broker: a single broker elected %d leaders of partitions it leads alone: %+v", len(elections), elections[0].Change))
	}
	return resp
}
