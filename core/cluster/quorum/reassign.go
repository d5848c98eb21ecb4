package quorum

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// alterReassignments serves AlterPartitionReassignments (KIP-455), which
// brokers forward here: cluster.AlterReassignments decides and the answer
// waits for the changes to commit. The moves then go on without the
// controller's help until the leader's AlterPartition that adds the last
// target replica to the ISR, which completes them (checkAlter).
func (c *controller) alterReassignments(id uint64, r *kmsg.AlterPartitionAssignmentsRequest) {
	resp, changes := cluster.AlterReassignments(c.n.image, r)
	c.proposeChanges(id, r, resp, changes, func(at cluster.ElectionAt, code int16, msg *string) {
		res := &resp.Topics[at.Topic].Partitions[at.Position]
		res.ErrorCode, res.ErrorMessage = code, msg
	})
}

// listReassignments serves ListPartitionReassignments from the committed
// image.
func (c *controller) listReassignments(id uint64, r *kmsg.ListPartitionReassignmentsRequest) {
	c.n.respond(id, cluster.ListReassignments(c.n.image, r))
}

// proposeChanges writes the partition changes a request decided, in one
// batch, and answers resp once it has committed; a change refused by its
// epoch guard (it lost a race with another change to its partition) has
// its outcome set to that error with fail.
func (c *controller) proposeChanges(id uint64, r kmsg.Request, resp kmsg.Response, changes []cluster.ElectionAt, fail func(at cluster.ElectionAt, code int16, msg *string)) {
	if len(changes) == 0 {
		c.n.respond(id, resp)
		return
	}
	recs := make([]cluster.Record, len(changes))
	keys := make([]string, len(changes))
	for i, e := range changes {
		recs[i] = cluster.Record{PartitionChange: e.Change}
		keys[i] = partitionKey(e.Change.Topic, e.Change.Partition)
	}
	c.propose(recs, &pending{id: id, req: r, done: func(errs []error) kmsg.Response {
		for i, e := range changes {
			if errs[i] != nil {
				msg := errs[i].Error()
				fail(e, recordError(errs[i]), &msg)
			}
		}
		return resp
	}}, keys)
}
