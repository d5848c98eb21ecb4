package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreatePartitions v0-3 (KIP-195). Partitions only grow: a count that is not
// larger than the current one gets INVALID_PARTITIONS, because a partition's
// records cannot be moved into another without breaking the order within
// it and the offsets consumers have committed (seed 004). In a cluster the
// controller adds them (KIP-590 forwarding); every replica's broker opens
// its log when it applies the new partition records (replica.go).
func init() {
	register(37, api{
		min: 0, max: 3, serve: handleCreatePartitions,
		acl: onTopics{op: kmsg.ACLOperationAlter, msg: "The topic authorization is failed."},
	})
}

func handleCreatePartitions(b *Broker, r *Request) kmsg.Response {
	b.limitMutations(r) // mutation_quota.go
	return b.image.byController(r, applyCreatePartitions)
}

// applyCreatePartitions is how a single broker, its own controller, serves it.
func applyCreatePartitions(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.CreatePartitionsRequest)
	resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
	for _, rt := range req.Topics {
		st := kmsg.NewCreatePartitionsResponseTopic()
		st.Topic = rt.Topic
		ke := b.growTopic(b.topics[rt.Topic], &rt, req.ValidateOnly)
		st.ErrorCode, st.ErrorMessage = ke.errCode(), ke.message()
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

func (b *Broker) growTopic(t *Topic, rt *kmsg.CreatePartitionsRequestTopic, validateOnly bool) *kafkaError {
	if t == nil {
		return errorf(kerr.UnknownTopicOrPartition, "topic %q does not exist", rt.Topic)
	}
	have := int32(len(t.Partitions))
	if rt.Count <= have {
		return errorf(kerr.InvalidPartitions, "topic currently has %d partitions, %d would not be an increase", have, rt.Count)
	}
	if rt.Count > MaxPartitions {
		return errorf(kerr.InvalidPartitions, "a topic may have at most %d partitions", MaxPartitions)
	}
	add := int(rt.Count - have)
	rf := len(t.Partitions[0].Replicas)
	var assignment [][]int32
	if rt.Assignment != nil {
		if len(rt.Assignment) != add {
			return errorf(kerr.InvalidReplicaAssignment, "%d assignments for %d new partitions", len(rt.Assignment), add)
		}
		for _, a := range rt.Assignment {
			if e := b.checkReplicas(a.Replicas, rf); e != nil {
				return e
			}
			assignment = append(assignment, a.Replicas)
		}
	} else {
		assignment = Place(b.brokers(), 0, int(have), add, rf)
	}
	if validateOnly {
		return nil
	}
	rec := b.meta.Topics[t.Name]
	rec.Replicas = append(rec.Replicas, assignment...)
	if err := b.addPartitions(t, rec.Replicas, b.now); err != nil {
		return errorf(kerr.KafkaStorageError, "%v", err)
	}
	if err := b.saveMetadata(); err != nil {
		return errorf(kerr.KafkaStorageError, "%v", err)
	}
	b.cfg.Logf("topic %s grew from %d to %d partitions", t.Name, have, rt.Count)
	return nil
}
