package quorum

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// electLeaders serves ElectLeaders (KIP-183, KIP-460), which brokers
// forward here (KIP-590): cluster.ElectLeaders decides, and the answer
// waits until the leader changes are committed. A change that lost a race
// with another one to the same partition is refused by its epoch guard,
// and its partition answers with that error.
func (c *controller) electLeaders(id uint64, r *kmsg.ElectLeadersRequest) {
	resp, elections := cluster.ElectLeaders(c.n.image, r)
	c.proposeChanges(id, r, resp, elections, func(e cluster.ElectionAt, code int16, msg *string) {
		res := &resp.Topics[e.Topic].Partitions[e.Position]
		res.ErrorCode, res.ErrorMessage = code, msg
	})
}
