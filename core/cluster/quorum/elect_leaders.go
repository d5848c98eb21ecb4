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
	if len(elections) == 0 {
		c.n.respond(id, resp)
		return
	}
	recs := make([]cluster.Record, len(elections))
	keys := make([]string, len(elections))
	for i, e := range elections {
		recs[i] = cluster.Record{PartitionChange: e.Change}
		keys[i] = partitionKey(e.Change.Topic, e.Change.Partition)
	}
	c.propose(recs, &pending{id: id, req: r, done: func(errs []error) kmsg.Response {
		for i, e := range elections {
			if errs[i] != nil {
				res := &resp.Topics[e.Topic].Partitions[e.Position]
				msg := errs[i].Error()
				res.ErrorCode, res.ErrorMessage = recordError(errs[i]), &msg
			}
		}
		return resp
	}}, keys)
}
