package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/gregor-kafka/gregor/core/wire"
)

// DeleteTopics v0-6; v6 can name topics by id (KIP-516). With
// delete.topic.enable false every topic gets TOPIC_DELETION_DISABLED
// (INVALID_REQUEST before v3, which has no such error), as Kafka answers.
// In a cluster the controller deletes them (KIP-590 forwarding) and every
// broker removes its logs of them when it applies the removal (replica.go).
func init() { register(20, 0, 6, handleDeleteTopics) }

func handleDeleteTopics(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DeleteTopicsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	if !b.cfg.Settings.Bool("delete.topic.enable") {
		code := kerr.TopicDeletionDisabled.Code
		if req.Version < 3 {
			code = kerr.InvalidRequest.Code
		}
		for _, rt := range wire.DeleteTopicsTargets(req) {
			st := kmsg.NewDeleteTopicsResponseTopic()
			st.Topic, st.TopicID, st.ErrorCode = rt.Topic, rt.TopicID, code
			resp.Topics = append(resp.Topics, st)
		}
		return resp
	}
	b.limitMutations(r) // mutation_quota.go
	if b.cl != nil {
		b.forward(r)
		return nil
	}
	for _, rt := range wire.DeleteTopicsTargets(req) {
		st := kmsg.NewDeleteTopicsResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		var t *Topic
		if rt.Topic != nil {
			t = b.topics[*rt.Topic]
		} else {
			t = b.byID[rt.TopicID]
		}
		switch {
		case t == nil && rt.Topic == nil:
			st.ErrorCode = kerr.UnknownTopicID.Code
		case t == nil:
			st.ErrorCode = kerr.UnknownTopicOrPartition.Code
		default:
			name := t.Name
			st.Topic, st.TopicID = &name, t.ID
			if err := b.deleteTopic(t); err != nil {
				b.cfg.Logf("deleting %s: %v", name, err)
			} else {
				b.cfg.Logf("deleted topic %s", name)
			}
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp
}
