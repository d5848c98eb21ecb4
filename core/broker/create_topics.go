package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/cluster"
)

// CreateTopics v0-7. -1 partitions or replication factor take the broker's
// defaults (KIP-464); validate_only checks without creating; v5+ answers
// with the resulting configs (KIP-525) and v7+ with the topic id.
func init() { register(19, api{min: 0, max: 7, serve: handleCreateTopics, acl: createTopicsACL{}}) }

func handleCreateTopics(b *Broker, r *Request) kmsg.Response {
	b.limitMutations(r) // mutation_quota.go
	return b.image.byController(r, applyCreateTopics)
}

// applyCreateTopics is how a single broker, its own controller, serves it.
func applyCreateTopics(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.CreateTopicsRequest)
	resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
	seen := map[string]int{}
	for _, rt := range req.Topics {
		seen[rt.Topic]++
	}
	for _, rt := range req.Topics {
		st := kmsg.NewCreateTopicsResponseTopic()
		st.Topic = rt.Topic
		if seen[rt.Topic] > 1 {
			st.ErrorCode = kerr.InvalidRequest.Code
			msg := "topic named more than once in the request"
			st.ErrorMessage = &msg
			resp.Topics = append(resp.Topics, st)
			continue
		}
		spec := &topicSpec{name: rt.Topic, partitions: rt.NumPartitions, rf: rt.ReplicationFactor, configs: map[string]string{}}
		ke := spec.readAssignment(rt.ReplicaAssignment)
		for _, c := range rt.Configs {
			if c.Value != nil {
				spec.configs[c.Name] = *c.Value
			}
		}
		if ke == nil {
			ke = b.planTopic(spec)
		}
		if ke == nil && !req.ValidateOnly {
			t, err := b.createTopic(spec)
			if err != nil {
				b.cfg.Logf("creating %s failed: %v", rt.Topic, err)
				ke = errorf(kerr.KafkaStorageError, "%v", err)
			} else {
				st.TopicID = t.ID
			}
		}
		st.ErrorCode, st.ErrorMessage = ke.errCode(), ke.message()
		if ke == nil {
			st.NumPartitions, st.ReplicationFactor = spec.partitions, spec.rf
			for _, c := range b.topicConfigs(spec.configs, nil, false, false) {
				tc := kmsg.NewCreateTopicsResponseTopicConfig()
				tc.Name, tc.Value, tc.ReadOnly, tc.Source, tc.IsSensitive = c.Name, c.Value, c.ReadOnly, int8(c.Source), c.IsSensitive
				st.Configs = append(st.Configs, tc)
			}
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}

// readAssignment takes an explicit replica assignment, which must name
// partitions 0..n-1 once each.
func (s *topicSpec) readAssignment(as []kmsg.CreateTopicsRequestTopicReplicaAssignment) *kafkaError {
	if len(as) == 0 {
		return nil
	}
	if len(as) > MaxPartitions {
		return errorf(kerr.InvalidPartitions, "more than %d partitions", MaxPartitions)
	}
	s.assignment = make([][]int32, len(as))
	for _, a := range as {
		if a.Partition < 0 || int(a.Partition) >= len(as) || s.assignment[a.Partition] != nil {
			return errorf(kerr.InvalidReplicaAssignment, "partitions must be numbered 0 to %d, each once", len(as)-1)
		}
		s.assignment[a.Partition] = a.Replicas
	}
	return nil
}

// createTopicsACL: CREATE on the cluster allows every topic, else
// each topic needs CREATE on itself. A created topic's configs, partition
// count and replication factor are answered only to who may
// DESCRIBE_CONFIGS it, else ConfigErrorCode (Kafka's TopicConfigErrorCode) says
// TOPIC_AUTHORIZATION_FAILED (KIP-525).
type createTopicsACL struct{}

func (createTopicsACL) authorize(b *Broker, r *Request) (kmsg.Response, func(kmsg.Response)) {
	q := r.Msg.(*kmsg.CreateTopicsRequest)
	var deny kmsg.Response
	var trim func(kmsg.Response)
	if !b.may(r, check{kmsg.ACLResourceTypeCluster, cluster.ClusterResource, kmsg.ACLOperationCreate}) {
		deny, trim = partial(r, &q.Topics, b.topicParts(r, kmsg.ACLOperationCreate), addPart("Topics", "", "Authorization failed."))
	}
	hide := func(resp kmsg.Response) {
		cr := resp.(*kmsg.CreateTopicsResponse)
		for i := range cr.Topics {
			t := &cr.Topics[i]
			if t.ErrorCode != 0 && t.ErrorCode != kerr.TopicAuthorizationFailed.Code ||
				b.may(r, check{kmsg.ACLResourceTypeTopic, t.Topic, kmsg.ACLOperationDescribeConfigs}) {
				continue
			}
			t.Configs, t.NumPartitions, t.ReplicationFactor = nil, -1, -1
			t.ConfigErrorCode = kerr.TopicAuthorizationFailed.Code
		}
	}
	if deny != nil {
		hide(deny)
		return deny, nil
	}
	return nil, both(trim, hide)
}
