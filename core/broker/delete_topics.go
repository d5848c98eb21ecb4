package broker

import (
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// DeleteTopics v0-6; v6 can name topics by id (KIP-516).
func init() { register(20, 0, 6, handleDeleteTopics) }

func handleDeleteTopics(b *Broker, r *Request) kmsg.Response {
	req := r.Msg.(*kmsg.DeleteTopicsRequest)
	if b.cl != nil {
		return notInCluster(req)
	}
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	targets := req.Topics
	for _, name := range req.TopicNames {
		targets = append(targets, kmsg.DeleteTopicsRequestTopic{Topic: &name})
	}
	for _, rt := range targets {
		st := kmsg.NewDeleteTopicsResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		var t *Topic
		if rt.Topic != nil {
			t = b.topics[*rt.Topic]
		} else {
			t = b.byID[rt.TopicID]
		}
		switch {
		case !b.cfg.Settings.Bool("delete.topic.enable"):
			st.ErrorCode = kerr.TopicDeletionDisabled.Code
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
