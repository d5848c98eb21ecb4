package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreateTopics v0-7. -1 partitions or replication factor take the broker's
// defaults (KIP-464); validate_only checks without creating; v5+ answers
// with the resulting configs (KIP-525) and v7+ with the topic id.
func init() { register(19, 0, 7, handleCreateTopics) }

func handleCreateTopics(b *Broker, r *Request) kmsg.Response {
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
		for _, a := range rt.ReplicaAssignment {
			for int(a.Partition) >= len(spec.assignment) {
				spec.assignment = append(spec.assignment, nil)
			}
			spec.assignment[a.Partition] = a.Replicas
		}
		for _, c := range rt.Configs {
			if c.Value != nil {
				spec.configs[c.Name] = *c.Value
			}
		}
		kerr := b.planTopic(spec)
		if kerr == nil && !req.ValidateOnly {
			t, err := b.createTopic(spec)
			if err != nil {
				b.cfg.Logf("creating %s failed: %v", rt.Topic, err)
				kerr = errorf(kerrStorage, "%v", err)
			} else {
				st.TopicID = t.ID
			}
		}
		st.ErrorCode, st.ErrorMessage = kerr.errCode(), kerr.message()
		if kerr == nil {
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

var kerrStorage = kerr.KafkaStorageError
