package quorum

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// createPartitions adds partitions to topics (CreatePartitions, KIP-195),
// as Kafka's ReplicationControlManager.createPartitions does: partitions
// only grow; new ones get the topic's replication factor and are placed
// with Place continuing the topic's placement (PlacementStart), unless the
// request assigns their replicas. Each new partition is a PartitionRecord;
// the whole request is one batch and the response waits for it.
// validate_only answers without writing anything.
func (c *controller) createPartitions(id uint64, r *kmsg.CreatePartitionsRequest) {
	names := make([]string, len(r.Topics))
	count := map[string]int{}
	for i, t := range r.Topics {
		names[i] = t.Topic
		count[t.Topic]++
	}
	if c.holdForTopics(id, r, names) {
		return
	}
	resp := newResponse[*kmsg.CreatePartitionsResponse](r)
	var recs []cluster.Record
	var keys []string
	type span struct{ topic, first, n int } // response topic -> its records
	var spans []span
	live := c.n.image.UsableBrokers()
	for _, t := range r.Topics {
		if count[t.Topic] == -1 {
			continue // a duplicate, answered once
		}
		rt := kmsg.NewCreatePartitionsResponseTopic()
		rt.Topic = t.Topic
		var mine []cluster.Record
		var msg string
		if count[t.Topic] > 1 {
			rt.ErrorCode, msg = kerr.InvalidRequest.Code, "Duplicate topic name."
			count[t.Topic] = -1
		} else {
			mine, rt.ErrorCode, msg = c.planPartitions(&t, live)
		}
		if msg != "" {
			rt.ErrorMessage = &msg
		}
		resp.Topics = append(resp.Topics, rt)
		if rt.ErrorCode != 0 || r.ValidateOnly {
			continue
		}
		spans = append(spans, span{len(resp.Topics) - 1, len(recs), len(mine)})
		recs = append(recs, mine...)
		for _, rec := range mine {
			keys = append(keys, partitionKey(t.Topic, rec.Partition.Partition))
		}
		keys = append(keys, topicKey(t.Topic))
	}
	if len(recs) == 0 {
		c.n.respond(id, resp)
		return
	}
	c.propose(recs, &pending{id: id, req: r, done: func(errs []error) kmsg.Response {
		for _, s := range spans {
			for _, err := range errs[s.first : s.first+s.n] {
				if err != nil {
					rt := &resp.Topics[s.topic]
					rt.ErrorCode, rt.ErrorMessage = growthError(err), nil
					break
				}
			}
		}
		return resp
	}}, keys)
}

// planPartitions validates one topic of a CreatePartitions request against
// the committed image and returns the records adding its partitions, or
// Kafka's error code and message.
func (c *controller) planPartitions(t *kmsg.CreatePartitionsRequestTopic, live []int32) ([]cluster.Record, int16, string) {
	it := c.n.image.Topics[t.Topic]
	if it == nil {
		return nil, kerr.UnknownTopicOrPartition.Code, ""
	}
	have := int32(len(it.Partitions))
	switch {
	case have == 0:
		return nil, kerr.UnknownServerError.Code, fmt.Sprintf("Invalid state: topic %s appears to have no partitions.", t.Topic)
	case t.Count == have:
		return nil, kerr.InvalidPartitions.Code, fmt.Sprintf("Topic already has %d partition(s).", have)
	case t.Count < have:
		return nil, kerr.InvalidPartitions.Code, fmt.Sprintf("The topic %s currently has %d partition(s); %d would not be an increase.", t.Topic, have, t.Count)
	case t.Count > cluster.MaxPartitions:
		return nil, kerr.InvalidPartitions.Code, fmt.Sprintf("A topic may have at most %d partitions.", cluster.MaxPartitions)
	}
	add := int(t.Count - have)
	rf := len(it.Partitions[0].Replicas)
	var assignment [][]int32
	if t.Assignment != nil {
		if len(t.Assignment) != add {
			return nil, kerr.InvalidReplicaAssignment.Code, fmt.Sprintf("Attempted to add %d additional partition(s), but only %d assignment(s) were specified.", add, len(t.Assignment))
		}
		for i, a := range t.Assignment {
			if code, msg := c.checkReplicas(have+int32(i), a.Replicas, rf); code != 0 {
				return nil, code, msg
			}
			assignment = append(assignment, a.Replicas)
		}
	} else {
		if rf > len(live) {
			return nil, kerr.InvalidReplicationFactor.Code, fmt.Sprintf("The target replication factor of %d cannot be reached because only %d broker(s) are registered.", rf, len(live))
		}
		start := c.n.image.PlaceStart(live, it.Partitions[0].Replicas[0])
		assignment = c.n.image.PlaceOn(live, start, int(have), add, rf)
	}
	recs := make([]cluster.Record, add)
	for i, reps := range assignment {
		recs[i] = c.newPartition(t.Topic, have+int32(i), reps)
	}
	return recs, 0, ""
}

// growthError is the error for a partition record the image skipped: the
// topic was deleted, or grew, after the request was decided.
func growthError(err error) int16 {
	if errors.Is(err, cluster.ErrExists) {
		return kerr.InvalidPartitions.Code
	}
	return recordError(err)
}
